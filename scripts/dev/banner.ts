import { sampleDataLines } from './sample-data/banner-lines';
import type { SampleDataOutcome } from './sample-data/seed-sample-data';
import type { Demo } from './seed-demo';

export interface RunningPlatform {
  gatewayUrl: string;
  /** Each backend: where it listens, and where the gateway proxies it (the same unless a *_URL says otherwise). */
  services: Array<{ name: string; listening: string; proxiedTo?: string }>;
  database: string;
  eventBus: string;
  demo: Demo;
  sampleData: SampleDataOutcome;
  echoUrl: string;
}

/**
 * What `npm start` prints in a terminal once everything listens: where to go, how to sign in,
 * and a request to paste. Plain text, so it reads the same in any terminal.
 */
export function banner(p: RunningPlatform): string {
  const { gatewayUrl: url, demo } = p;
  const signIn = JSON.stringify({ email: demo.user.email, password: demo.password });
  const width = Math.max(...p.services.map((s) => s.name.length)) + 2;
  const lines = [
    '',
    '  CRM platform is running',
    '',
    `  Gateway     ${url}   (the one address clients use)`,
    `  Health      ${url}/api/health`,
    '',
    '  Demo sign-in',
    `    tenant    ${demo.tenant.name} (slug "${demo.tenant.slug}", id ${demo.tenant.id})`,
    `    email     ${demo.user.email}`,
    `    password  ${demo.password}   (DEMO_PASSWORD when the demo user was first created)`,
    '',
    ...sampleDataLines(p.sampleData, p.echoUrl),
    '',
    '  Try it: sign in, then call a Session route with the cookie',
    `    curl -s -c /tmp/crm.cookies -H 'content-type: application/json' \\`,
    `      -d '${signIn}' ${url}/api/auth/sign-in`,
    `    curl -s -b /tmp/crm.cookies ${url}/api/auth/me`,
    `    curl -s -b /tmp/crm.cookies '${url}/api/crm/deals?limit=5'`,
    '',
    '  Behind the gateway (private: call them through the gateway)',
    ...p.services.map(
      (s) =>
        `    ${s.name.padEnd(width)}${s.listening}${
          s.proxiedTo && s.proxiedTo !== s.listening ? `   (gateway proxies to ${s.proxiedTo})` : ''
        }`,
    ),
    `    ${'database'.padEnd(width)}${p.database}`,
    `    ${'event bus'.padEnd(width)}${p.eventBus}`,
    '',
    `  API reference  ${url}/api-docs   (try it once signed in; OpenAPI: ${url}/api/openapi.json)`,
    '  Guides: docs/. Logs follow; LOG_LEVEL=debug for more.',
    '  Ctrl-C stops every service and the embedded Postgres.',
    '',
    '',
  ];
  return lines.join('\n');
}
