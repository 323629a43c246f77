import type { EchoReceiver } from '../echo-receiver';
import { GatewayClient } from './gateway-client';
import { FORM_INTERESTS, generateSampleData, type SampleData } from './generate';

export interface SampleCounts {
  leads: number;
  contacts: number;
  deals: number;
  forms: number;
  submissions: number;
  workflows: number;
}

/** What the sample-data step of `npm start` did, for the banner and the log. */
export type SampleDataOutcome =
  | { state: 'seeded'; counts: SampleCounts; mcpKey: string; testRunStatus: string }
  | { state: 'already present' }
  | { state: 'off' }
  | { state: 'failed'; reason: string };

export interface SampleDataTarget {
  /** Where the gateway answers, as this process reaches it. */
  gatewayUrl: string;
  tenant: { id: string; slug: string };
  email: string;
  password: string;
  echo: EchoReceiver;
}

export const SAMPLE_FORM_SLUG = 'contact-us';
export const SAMPLE_WORKFLOW_NAME = 'Web form submissions to the local echo receiver';

interface Envelope<T> {
  data: T;
}
interface McpToolResult {
  result?: {
    isError?: boolean;
    content?: Array<{ text?: string }>;
    structuredContent?: { imported: number; failed: number; ids: string[] };
  };
  error?: { message: string };
}

const day = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** One MCP `tools/call` over raw HTTP (stateless Streamable HTTP, docs/mcp.md). */
async function callMcpTool(
  client: GatewayClient,
  key: string,
  name: string,
  records: unknown[],
): Promise<string[]> {
  const answer = await client.post<McpToolResult>(
    '/api/mcp',
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { records } } },
    200,
    {
      authorization: `Bearer ${key}`,
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
  );
  const result = answer.result;
  if (!result || result.isError || !result.structuredContent || result.structuredContent.failed) {
    const why = answer.error?.message ?? result?.content?.[0]?.text ?? 'no result';
    throw new Error(`MCP ${name} did not store every record: ${why}`);
  }
  return result.structuredContent.ids;
}

/**
 * The demo tenant's sample CRM, written through the gateway as the demo user, exactly as a
 * client would (specified: through the platform's own write paths, events included): so every
 * row passes validation and every write puts its events in the outbox. Runs once per database:
 * a tenant that has any lead or workflow already is left alone, so a restart never duplicates
 * anything.
 *
 * The workflow comes first: a setting that refuses it (OUTBOUND_ALLOW_PRIVATE_NETWORKS=false)
 * stops the seeding before anything is written, and the form's submissions all find it, so its
 * run history holds real runs (one per submission, sent to the echo receiver) beside a test run.
 */
export async function seedSampleData(target: SampleDataTarget): Promise<SampleDataOutcome> {
  const client = new GatewayClient(target.gatewayUrl);
  await client.signIn(target.email, target.password);
  client.useTenant(target.tenant.id);
  // The first write is the workflow, the bulk of it leads: either one means a start got here.
  const leadsBefore = await client.get<{ total: number }>('/api/crm/leads?pageSize=1');
  const workflowsBefore = await client.get<{ total: number }>(
    '/api/automations/workflows?pageSize=1',
  );
  if (leadsBefore.total > 0 || workflowsBefore.total > 0) return { state: 'already present' };

  const data: SampleData = generateSampleData();
  const me = await client.get<{ data: { user: { id: string } } }>('/api/auth/me');

  const workflow = await client.post<
    Envelope<{ workflow: { id: string }; signing_secret: string }>
  >('/api/automations/workflows', {
    name: SAMPLE_WORKFLOW_NAME,
    enabled: true,
    trigger: { event: 'form.submitted', conditions: [] },
    nodes: [
      {
        type: 'webhook',
        name: 'notify the sales channel',
        config: {
          url: `${target.echo.url}/hooks/form-submitted`,
          method: 'POST',
          headers: { 'X-Team': 'sales' },
        },
      },
    ],
  });
  target.echo.trust(workflow.data.signing_secret);

  const key = await client.post<Envelope<{ api_key: string }>>('/api/mcp/keys', {
    name: 'Sample data agent',
    scopes: ['mcp:ingest:leads', 'mcp:ingest:contacts'],
  });
  const mcpKey = key.data.api_key;

  const imported = await client.post<{ failed: number; data: Array<{ id: string }> }>(
    '/api/v1/import/leads',
    { leads: data.leads },
    200,
  );
  if (imported.failed > 0) throw new Error(`the lead import refused ${imported.failed} rows`);
  const leadIds = imported.data.map((lead) => lead.id);

  const contactIds = await callMcpTool(client, mcpKey, 'ingest_contacts', data.contacts);

  await client.post('/api/crm/forms', {
    slug: SAMPLE_FORM_SLUG,
    name: 'Contact us',
    fields: [
      { name: 'email', label: 'Work email', type: 'email', required: true },
      { name: 'first_name', label: 'First name' },
      { name: 'last_name', label: 'Last name' },
      { name: 'company', label: 'Company' },
      {
        name: 'interest',
        label: 'I am interested in',
        type: 'select',
        options: [...FORM_INTERESTS],
      },
      { name: 'message', label: 'Message', type: 'textarea' },
      { name: 'newsletter', label: 'Send me product news', type: 'checkbox' },
    ],
  });
  for (const submission of data.submissions) {
    await client.post(
      `/api/public/forms/${target.tenant.slug}/${SAMPLE_FORM_SLUG}/submit`,
      submission,
    );
  }

  for (const deal of data.deals) {
    await client.post('/api/crm/deals', {
      title: deal.title,
      value: deal.value,
      currency: deal.currency,
      stage: deal.stage,
      assigned_to: me.data.user.id,
      expected_close_date: day(deal.closesInDays),
      ...(deal.leadIndex === undefined ? {} : { lead_id: leadIds[deal.leadIndex] }),
      ...(deal.contactIndex === undefined ? {} : { contact_id: contactIds[deal.contactIndex] }),
    });
  }

  const test = await client.post<Envelope<{ run: { status: string } }>>(
    `/api/automations/workflows/${workflow.data.workflow.id}/test`,
    { module: 'forms', record: { id: 'sample-1', email: data.submissions[0].email } },
    200,
  );

  const after = await client.get<{ total: number }>('/api/crm/leads?pageSize=1');
  return {
    state: 'seeded',
    mcpKey,
    testRunStatus: test.data.run.status,
    counts: {
      leads: after.total,
      contacts: new Set(contactIds).size,
      deals: data.deals.length,
      forms: 1,
      submissions: data.submissions.length,
      workflows: 1,
    },
  };
}
