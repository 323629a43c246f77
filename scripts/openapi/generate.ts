import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { loadConfig } from '../../libs/shared/src/config';
import { OpenAPIRegistry, SECURITY_SCHEMES } from '../../libs/shared/src/openapi';
import { registerOperations as automation } from '../../services/automation/src/openapi';
import { registerOperations as crmApi } from '../../services/crm-api/src/openapi';
import { configSchema as gatewayConfigSchema } from '../../services/gateway/src/config';
import { registerOperations as gateway } from '../../services/gateway/src/openapi';
import { withRateLimit } from '../../services/gateway/src/api-docs/rate-limit';
import { registerOperations as mcpIngest } from '../../services/mcp-ingest/src/openapi';
import { registerOperations as migrate } from '../../services/migrate/src/openapi';
import { registerOperations as webhookIngest } from '../../services/webhook-ingest/src/openapi';
import { addExamples } from './examples';

/*
 * `npm run openapi`: the OpenAPI 3.1 document of every service's operations, written to
 * services/gateway/api-docs/openapi.json (committed; the gateway serves it at
 * GET /api/openapi.json). A unit test fails when the committed file differs from this output.
 * A service adds its operations with a `registerOperations` in its src/openapi.ts, listed here.
 */
export const SERVICES: ReadonlyArray<(registry: OpenAPIRegistry) => void> = [
  gateway,
  crmApi,
  webhookIngest,
  automation,
  mcpIngest,
  migrate,
];

export const DOCUMENT_PATH = resolve(__dirname, '../../services/gateway/api-docs/openapi.json');

/**
 * The resources the endpoint browser lists (specified): planned ones have no callable endpoint yet.
 */
export const RESOURCES: ReadonlyArray<{ name: string; tag?: string; note: string }> = [
  { name: 'Contacts', tag: 'Contacts', note: 'list, create, read, change, delete' },
  { name: 'Leads', tag: 'Leads', note: 'import, list, read' },
  { name: 'Deals', tag: 'Deals', note: 'list, create, read, change, delete' },
  { name: 'Activities', tag: 'Activities', note: 'list, read' },
  {
    name: 'Automations',
    tag: 'Automations',
    note: 'workflows, runs, test runs, outbound webhooks',
  },
];

function description(callableTags: Set<string>): string {
  const rows = RESOURCES.map((r) => {
    const callable = r.tag !== undefined && callableTags.has(r.tag);
    return `| ${r.name} | ${callable ? `callable: ${r.note}` : '**planned** (no callable endpoint yet)'} |`;
  });
  return [
    'The CRM platform API, served through one gateway. Only the operations listed here are callable.',
    '',
    '### Resources',
    '',
    '| Resource | Status |',
    '|---|---|',
    ...rows,
    '',
    '### Authentication',
    '',
    '- **Session cookie** (`session`): `POST /api/auth/sign-in` with `{ "email", "password" }` sets the HttpOnly `crm_session` cookie; send it with every Session route (the browser does so on this origin, so "Try it out" works once signed in). Choose the tenant with `POST /api/auth/active-tenant`.',
    "- **Provider signatures** (`<provider>Signature`): each inbound receiver verifies its provider's signature header over the raw body with the secret of the connection; see each receiver.",
    '- **Signed migration calls** (`serviceHmac`): `x-svc-signature` (hex HMAC-SHA256 over method, path, timestamp in ms, nonce and raw body joined by a newline), `x-svc-timestamp`, `x-svc-nonce` (single use).',
    '- **MCP bearer key** (`mcpBearer`): `Authorization: Bearer crm_mcp_...`, a key created at `POST /api/mcp/keys`.',
    '',
    '### Responses',
    '',
    'Success: `{ success: true, data, message }`. Failure: `{ success: false, error, code, message, details }`. Some older routes answer their own shapes (deals list `{ deals }`, lead import `{ success, imported, failed, errors, data }`); non-enveloped routes answer errors as `{ error }`. Branch on the HTTP status first.',
  ].join('\n');
}

export function buildDocument(): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) {
    registry.registerComponent('securitySchemes', name, { ...scheme });
  }
  for (const register of SERVICES) register(registry);
  const tags = new Set(
    registry.definitions.flatMap((d) => (d.type === 'route' ? (d.route.tags ?? []) : [])),
  );
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'CRM platform API', version: '1.0.0', description: description(tags) },
    servers: [{ url: '/', description: 'This gateway' }],
    tags: [...tags].sort().map((name) => ({ name })),
  });
  const limits = loadConfig('gateway', gatewayConfigSchema, {});
  return withRateLimit(addExamples(document as never), limits) as unknown as Record<
    string,
    unknown
  >;
}

export function serialize(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (require.main === module) {
  writeFileSync(DOCUMENT_PATH, serialize(buildDocument()));
  console.log(`wrote ${DOCUMENT_PATH}`);
}
