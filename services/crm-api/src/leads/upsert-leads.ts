import { type Trx } from '@crm/shared/db';
import { writeEvents } from '@crm/shared/events';
import { sql } from 'kysely';
import { DEFAULT_LEAD_SOURCE, DEFAULT_LEAD_STATUS, type LeadInput } from './normalize-lead';

export interface StoredLead {
  id: string;
  email: string;
  status: string;
  source: string;
  created: boolean;
}

interface ExistingLead {
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  status: string;
  source: string;
  custom_fields: Record<string, unknown>;
}

/** Rows per statement: arrays of this size keep each statement well under a few MB. */
const CHUNK = 5000;

/**
 * The merge rule (documented in docs/leads.md): a field given in the input replaces the stored
 * one, a field left out keeps it, and custom_fields are merged key by key (input wins).
 * Rows with the same email in one request merge the same way, in request order.
 */
function merge(base: ExistingLead | LeadInput | undefined, next: LeadInput): LeadInput {
  if (!base) return next;
  return {
    email: next.email,
    first_name: next.first_name !== undefined ? next.first_name : base.first_name,
    last_name: next.last_name !== undefined ? next.last_name : base.last_name,
    phone: next.phone !== undefined ? next.phone : base.phone,
    status: next.status ?? base.status,
    source: next.source ?? base.source,
    custom_fields: { ...base.custom_fields, ...next.custom_fields },
  };
}

/**
 * Creates or updates leads by email (unique per tenant, case-insensitive), set-based: per
 * chunk one SELECT of the existing rows and one INSERT ... ON CONFLICT over one JSON parameter,
 * plus one outbox INSERT of `lead.created` / `lead.updated` events, all in the caller's
 * tenant transaction. Returns the stored lead for every input, in input order.
 */
export async function upsertLeads(
  trx: Trx,
  tenantId: string,
  inputs: LeadInput[],
  defaults: { source?: string } = {},
): Promise<StoredLead[]> {
  const byEmail = new Map<string, LeadInput>();
  for (const input of inputs) byEmail.set(input.email, merge(byEmail.get(input.email), input));
  const unique = [...byEmail.values()];
  const stored = new Map<string, StoredLead>();

  for (let start = 0; start < unique.length; start += CHUNK) {
    const chunk = unique.slice(start, start + CHUNK);
    const emails = chunk.map((l) => l.email);
    const existing = await trx
      .selectFrom('crm_leads')
      .select(['email', 'first_name', 'last_name', 'phone', 'status', 'source', 'custom_fields'])
      .where('tenant_id', '=', tenantId)
      .where('email', '=', sql<string>`ANY(${emails}::text[])`)
      .execute();
    const existingByEmail = new Map(existing.map((row) => [row.email, row as ExistingLead]));
    const rows = chunk.map((input) => merge(existingByEmail.get(input.email), input));
    const values = rows.map((r) => ({
      email: r.email,
      first_name: r.first_name ?? null,
      last_name: r.last_name ?? null,
      phone: r.phone ?? null,
      status: r.status ?? DEFAULT_LEAD_STATUS,
      source: r.source ?? defaults.source ?? DEFAULT_LEAD_SOURCE,
      custom_fields: r.custom_fields,
    }));
    // One JSON parameter unpacked by Postgres: much cheaper than the driver encoding seven
    // array parameters of thousands of elements each.
    const { rows: written } = await sql<StoredLead>`
      INSERT INTO crm_leads (tenant_id, email, first_name, last_name, phone, status, source, custom_fields)
      SELECT ${tenantId}::uuid, r.email, r.first_name, r.last_name, r.phone, r.status, r.source, r.custom_fields
        FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
          AS r(email text, first_name text, last_name text, phone text, status text, source text, custom_fields jsonb)
      ON CONFLICT (tenant_id, email) DO UPDATE SET
        first_name = EXCLUDED.first_name,
        last_name = EXCLUDED.last_name,
        phone = EXCLUDED.phone,
        status = EXCLUDED.status,
        source = EXCLUDED.source,
        custom_fields = EXCLUDED.custom_fields,
        updated_at = now()
      RETURNING id, email, status, source, (xmax = 0) AS created`.execute(trx);
    for (const lead of written) stored.set(lead.email, lead);
    await writeEvents(
      trx,
      written.map((lead) => ({
        type: lead.created ? 'lead.created' : 'lead.updated',
        tenant_id: tenantId,
        record: { module: 'leads', id: lead.id },
        data: { email: lead.email, status: lead.status, source: lead.source },
      })),
    );
  }
  return inputs.map((input) => stored.get(input.email) as StoredLead);
}
