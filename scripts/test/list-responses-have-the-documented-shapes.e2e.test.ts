import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withSystemScope } from '@crm/shared/db';
import { sessionClient, tenantSession, usePlatformBehindGateway } from '@crm/test-kit';
import { service as automation } from '../../services/automation/src/main';
import { service as crmApi } from '../../services/crm-api/src/main';
import openapi from '../../services/gateway/api-docs/openapi.json';
import { service as mcpIngest } from '../../services/mcp-ingest/src/main';
import { service as webhookIngest } from '../../services/webhook-ingest/src/main';

/*
 * docs/api.md lists every route that answers a list with the shape of its 200 body. Each route
 * is called through the real gateway, and its body must have exactly the keys the table says;
 * the table must name every list route of the OpenAPI document.
 */
const PAGE = ['items', 'page', 'pageSize', 'total', 'totalPages'];

function documentedShapes(): Array<{ route: string; shape: string }> {
  const page = readFileSync(join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');
  const section = page.slice(page.indexOf('## List responses'), page.indexOf('## Interactive'));
  return [...section.matchAll(/^\| `(GET [^`]+)` +\| `([^`]+)` +\|$/gm)].map((m) => ({
    route: m[1],
    shape: m[2],
  }));
}

const CURSOR_PAGE = [...PAGE, 'nextCursor', 'totalExact'].sort();

/** `Page`, `CursorPage` or `{ a: [...] }` -> the keys it names, sorted. */
function keysOf(shape: string): string[] {
  if (shape === 'Page') return PAGE;
  if (shape === 'CursorPage') return CURSOR_PAGE;
  return [...shape.matchAll(/(\w+):/g)].map((m) => m[1]).sort();
}

/** The keys of a body at the top, and inside `data` for an enveloped one. */
function expectedKeys(shape: string): { top: string[]; data?: string[] } {
  const enveloped = /^\{ success, data: (.+), message \}$/.exec(shape);
  if (enveloped) return { top: ['data', 'message', 'success'], data: keysOf(enveloped[1]) };
  return { top: keysOf(shape) };
}

// The receivers route answers the platform's fixed set of six provider kinds in the success
// envelope: configuration, not a list of rows that pages. The OAuth authorize endpoint answers
// a redirect to the consent page.
const NOT_LISTS = [
  '/api/health',
  '/api/openapi.json',
  '/api/auth/me',
  '/api/mcp',
  '/api/integrations/receivers',
  '/api/oauth/authorize',
];

/** GET operations of the OpenAPI document that are not one record, a probe or a receiver. */
function listRoutesOfTheOpenApiDocument(): string[] {
  return Object.entries(openapi.paths as Record<string, object>)
    .filter(([path, item]) => 'get' in item && path.startsWith('/api/'))
    .map(([path]) => path.replace(/\{(\w+)\}/g, ':$1'))
    .filter((path) => !/\/:\w+$/.test(path) && !NOT_LISTS.includes(path))
    .filter((path) => !path.startsWith('/api/webhooks/') && !path.startsWith('/api/messaging/'))
    .map((path) => `GET ${path}`)
    .sort();
}

const stack = usePlatformBehindGateway([
  { service: crmApi },
  { service: webhookIngest },
  { service: automation },
  { service: mcpIngest },
]);

describe('list responses (docs/api.md, List responses)', () => {
  const shapes = documentedShapes();
  let cookie: string;
  /** The record each `:id` of a route names: a lead, a contact, a conversation, a form or a workflow. */
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    let tenantId: string;
    ({ cookie, tenantId } = await tenantSession(stack, stack.database, 'owner'));
    const created = await sessionClient(stack.url, cookie).post('/api/automations/workflows', {
      name: 'Any lead',
      trigger: { event: 'lead.*' },
      nodes: [{ type: 'webhook', config: { url: 'http://example.com/x', method: 'POST' } }],
    });
    expect(created.status).toBe(201);
    ids.workflow = created.body.data.workflow.id;
    // A conversation the messaging receiver stored, for its messages list.
    ids.conversation = await withSystemScope(stack.database.db, async (trx) => {
      const row = await trx
        .insertInto('chat_conversations')
        .values({ tenant_id: tenantId, channel: 'messaging', external_id: '447700900123' })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    });
    const lead = await sessionClient(stack.url, cookie).post('/api/v1/import/leads', {
      leads: [{ email: 'shapes@example.com' }],
    });
    const contact = await sessionClient(stack.url, cookie).post('/api/crm/contacts', {
      email: 'shapes@example.com',
    });
    expect([lead.status, contact.status]).toEqual([200, 201]);
    const form = await sessionClient(stack.url, cookie).post('/api/crm/forms', {
      slug: 'shapes',
      name: 'Shapes',
    });
    expect(form.status).toBe(201);
    ids.form = form.body.data.form.id;
    ids.lead = lead.body.data[0].id;
    ids.contact = contact.body.data.contact.id;
  });

  it('the table names every list route of the OpenAPI document, and only those', () => {
    expect(shapes.length).toBeGreaterThan(10);
    expect(shapes.map((s) => s.route).sort()).toEqual(listRoutesOfTheOpenApiDocument());
  });

  it('every list route answers 200 with the keys the table gives', async () => {
    const answers = [];
    for (const { route, shape } of shapes) {
      const path = route
        .slice('GET '.length)
        .replace(/^\/api\/crm\/(lead|contact|conversation|form)s\/:id/, (prefix, kind: string) =>
          prefix.replace(':id', ids[kind]),
        )
        .replace(':id', ids.workflow);
      const res = await sessionClient(stack.url, cookie).get(path);
      const body = res.body as Record<string, unknown>;
      const data = body.data as Record<string, unknown> | undefined;
      answers.push({
        route,
        status: res.status,
        top: Object.keys(body).sort(),
        ...(data && !Array.isArray(data) ? { data: Object.keys(data).sort() } : {}),
      });
      expect(answers.at(-1)).toEqual({ route, status: 200, ...expectedKeys(shape) });
    }
  });
});
