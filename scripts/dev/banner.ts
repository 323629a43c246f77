import { sampleDataLines } from './sample-data/banner-lines';
import type { SampleDataOutcome } from './sample-data/seed-sample-data';
import type { DevProfile } from './dev-profile';
import type { Demo } from './seed-demo';
import { sessionCommands, signInCommand } from './try-commands';

export interface RunningPlatform {
  gatewayUrl: string;
  /** Each backend: where it listens, and where the gateway proxies it (the same unless a *_URL says otherwise). */
  services: Array<{ name: string; listening: string; proxiedTo?: string }>;
  database: string;
  eventBus: string;
  demo: Demo;
  sampleData: SampleDataOutcome;
  echoUrl: string;
  /** The development profile in use; undefined under NODE_ENV=production. */
  profile?: DevProfile;
  /** The migrate:push command for the demo tenant (migratePushCommand). */
  migratePush: string;
}

/** What the development profile set, and how to change it. */
function profileLines(profile: DevProfile | undefined): string[] {
  if (!profile) {
    return [
      '  No development profile (NODE_ENV=production): every secret comes from the environment',
    ];
  }
  const own = profile.fromEnvironment.length
    ? `; from your environment: ${profile.fromEnvironment.join(', ')}`
    : '';
  return [
    '  Development profile (the default of npm start; docs/development.md)',
    `    secrets   ${profile.secretsFile}, kept between starts${own}`,
    profile.privateNetworksAllowed
      ? '    webhooks  may reach this machine and private networks (OUTBOUND_ALLOW_PRIVATE_NETWORKS=true)'
      : '    webhooks  public addresses only (OUTBOUND_ALLOW_PRIVATE_NETWORKS=false)',
  ];
}

/**
 * What `npm start` prints in a terminal once everything listens: where to go, how to sign in,
 * and a request to paste. Plain text, so it reads the same in any terminal.
 */
export function banner(p: RunningPlatform): string {
  const { gatewayUrl: url, demo } = p;
  const [me, deals] = sessionCommands(url);
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
    `    ${signInCommand(url, demo.user.email, demo.password)}`,
    `    ${me}`,
    `    ${deals}`,
    '',
    '  Migrate a file into the demo tenant (signed with SVC_MIGRATE_SIGNING_SECRET; docs/migrate.md)',
    `    ${p.migratePush}`,
    '',
    ...profileLines(p.profile),
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
