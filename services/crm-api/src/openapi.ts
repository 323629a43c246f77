import {
  dealChangeSchema,
  dealInputSchema,
  leadImportItemSchema,
  leadResultItemSchema,
} from '@crm/records';
import { cursorPageQuerySchema, pageQuerySchema } from '@crm/shared/pagination';
import {
  addOperation,
  idParam,
  cursorPaginated,
  paginated,
  record,
  type OpenAPIRegistry,
} from '@crm/shared/openapi';
import { z } from 'zod';
import { listQuery } from './deals/deals.schema';
import { exportRequestSchema } from './exports/exports.schema';
import { FORM_SORTABLE } from './forms/forms.repository';
import { createFormSchema, listFilters, updateFormSchema } from './forms/forms.schema';
import { LEAD_SORTABLE, leadChangeSchema, leadFiltersSchema } from './leads/leads.schema';

/*
 * crm-api's operations, from the schemas its routes validate with (build-time only: the
 * generator in scripts/openapi imports this; the service never does).
 */

const DEAL_ID = '3b0c9f7e-1d2a-4e5b-8c6d-7e8f9a0b1c2d';
const deal = record.openapi('Deal', {
  example: {
    id: DEAL_ID,
    title: 'Annual plan',
    value: '1200.00',
    currency: 'USD',
    stage: 'proposal',
    assigned_to: null,
    lead_id: null,
    contact_id: null,
    expected_close_date: '2026-12-31',
    custom_fields: {},
    created_at: '2026-11-24T10:00:00.000Z',
    updated_at: '2026-11-24T10:00:00.000Z',
  },
});
const lead = record.openapi('Lead');
const form = record.openapi('Form');

export function registerOperations(registry: OpenAPIRegistry): void {
  addOperation(registry, {
    method: 'post',
    path: '/api/v1/import/leads',
    tag: 'Leads',
    summary: 'Import leads (up to the configured row limit per request)',
    description:
      'Rows are checked one by one: a bad row is reported in `errors` and does not stop the ' +
      'others. Existing emails are updated. Answers the legacy shape ' +
      '`{ success, imported, failed, errors, data }`.',
    auth: 'session',
    body: {
      schema: z.object({ leads: z.array(leadImportItemSchema).min(1) }),
      example: {
        leads: [
          { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', source: 'import' },
        ],
      },
    },
    success: {
      description: 'Processed; per-row outcomes in imported / failed / errors',
      bare: z.object({
        success: z.literal(true),
        imported: z.number().int(),
        failed: z.number().int(),
        errors: z.array(
          z.object({ index: z.number().int(), error: z.string() }).catchall(z.unknown()),
        ),
        data: z.array(leadResultItemSchema),
      }),
      example: {
        success: true,
        imported: 1,
        failed: 0,
        errors: [],
        data: [
          {
            id: '9d3e8c1a-5b7f-4a2e-b6c4-1f0e2d3c4b5a',
            email: 'ada@example.com',
            status: 'new',
            source: 'import',
          },
        ],
      },
    },
    errors: [400, 413, 415],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/leads',
    tag: 'Leads',
    summary: 'List leads (paginated by page or cursor, filtered)',
    auth: 'session',
    query: cursorPageQuerySchema({ sortable: LEAD_SORTABLE, defaultSortBy: 'created_at' }).extend(
      leadFiltersSchema.shape,
    ),
    success: { description: 'A page of leads', bare: cursorPaginated(lead) },
    errors: [400],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/crm/leads',
    tag: 'Leads',
    summary: 'Create one lead',
    description:
      'The rules and error texts of one import item; a second lead with the same email in the ' +
      'tenant is a 409 ALREADY_EXISTS. Writes lead.created. Viewers may not.',
    auth: 'session',
    body: {
      schema: leadImportItemSchema,
      example: { email: 'ada@example.com', first_name: 'Ada', status: 'new', company: 'Acme' },
    },
    success: { status: 201, description: 'Lead created', data: z.object({ lead }) },
    errors: [400, 409, 413, 415],
  });
  addOperation(registry, {
    method: 'patch',
    path: '/api/crm/leads/{id}',
    tag: 'Leads',
    summary: 'Change a lead',
    description:
      'The keys given replace the stored values (custom_fields merge key by key); a new email ' +
      'another lead of the tenant has is a 409 ALREADY_EXISTS. Writes lead.updated.',
    auth: 'session',
    params: idParam(),
    body: { schema: leadChangeSchema, example: { status: 'qualified', phone: '+1 555 0100' } },
    success: { description: 'Lead updated', data: z.object({ lead }) },
    errors: [400, 404, 409, 413, 415],
  });
  addOperation(registry, {
    method: 'delete',
    path: '/api/crm/leads/{id}',
    tag: 'Leads',
    summary: 'Delete a lead',
    description: 'Writes lead.deleted; deals and activities keep their rows, without the lead.',
    auth: 'session',
    params: idParam(),
    success: { description: 'Lead deleted', data: z.object({ id: z.uuid() }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/leads/{id}',
    tag: 'Leads',
    summary: 'One lead',
    auth: 'session',
    params: idParam(),
    success: { description: 'The lead', data: z.object({ lead }) },
    errors: [404],
  });

  addOperation(registry, {
    method: 'get',
    path: '/api/crm/deals',
    tag: 'Deals',
    summary: 'List deals',
    description: 'Answers the legacy shape `{ deals: [...] }` (specified for this older route).',
    auth: 'session',
    query: listQuery,
    success: { description: 'The deals', bare: z.object({ deals: z.array(deal) }) },
    errors: [400],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/crm/deals',
    tag: 'Deals',
    summary: 'Create a deal',
    auth: 'session',
    body: {
      schema: dealInputSchema,
      example: { title: 'Annual plan', value: '1200.00', currency: 'USD', stage: 'proposal' },
    },
    success: { status: 201, description: 'Deal created', data: z.object({ deal }) },
    errors: [400, 413, 415],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/deals/{id}',
    tag: 'Deals',
    summary: 'One deal',
    auth: 'session',
    params: idParam(),
    success: { description: 'The deal', data: z.object({ deal }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'patch',
    path: '/api/crm/deals/{id}',
    tag: 'Deals',
    summary: 'Change a deal',
    auth: 'session',
    params: idParam(),
    body: { schema: dealChangeSchema, example: { stage: 'won' } },
    success: { description: 'Deal updated', data: z.object({ deal }) },
    errors: [400, 404, 413, 415],
  });
  addOperation(registry, {
    method: 'delete',
    path: '/api/crm/deals/{id}',
    tag: 'Deals',
    summary: 'Delete a deal',
    auth: 'session',
    params: idParam(),
    success: { description: 'Deal deleted', data: z.object({ id: z.uuid() }) },
    errors: [404],
  });

  addOperation(registry, {
    method: 'post',
    path: '/api/exports',
    tag: 'Exports',
    summary: 'Export a resource as a file (streamed)',
    description: 'Viewers may call it: it only reads.',
    auth: 'session',
    body: { schema: exportRequestSchema, example: { resource: 'leads', format: 'csv' } },
    success: {
      description: 'The file, streamed as an attachment',
      contentType: 'application/octet-stream',
      bare: z.string().openapi({ format: 'binary' }),
    },
    errors: [400, 413, 415, 503],
  });

  addOperation(registry, {
    method: 'post',
    path: '/api/crm/forms',
    tag: 'Forms',
    summary: 'Create a web form',
    auth: 'session',
    body: {
      schema: createFormSchema,
      example: {
        name: 'Contact us',
        slug: 'contact-us',
        fields: [{ name: 'email', label: 'Email', type: 'email', required: true }],
      },
    },
    success: { status: 201, description: 'Form created', data: z.object({ form }) },
    errors: [400, 409, 413, 415],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/forms',
    tag: 'Forms',
    summary: 'List web forms',
    auth: 'session',
    query: pageQuerySchema({ sortable: FORM_SORTABLE, defaultSortBy: 'created_at' }).extend(
      listFilters.shape,
    ),
    success: { description: 'A page of forms', data: paginated(form) },
    errors: [400],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/crm/forms/{id}',
    tag: 'Forms',
    summary: 'One web form',
    auth: 'session',
    params: idParam(),
    success: { description: 'The form', data: z.object({ form }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'patch',
    path: '/api/crm/forms/{id}',
    tag: 'Forms',
    summary: 'Change a web form',
    auth: 'session',
    params: idParam(),
    body: { schema: updateFormSchema, example: { enabled: false } },
    success: { description: 'Form updated', data: z.object({ form }) },
    errors: [400, 404, 409, 413, 415],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/public/forms/{tenantSlug}/{formSlug}/submit',
    tag: 'Forms',
    summary: 'Submit a web form (public, from any origin)',
    description:
      'JSON or urlencoded. Creates the lead of a new email; on an existing lead fills only ' +
      'empty fields, never replacing stored values. Answers with the submission id only, the ' +
      'same whether or not the email was already a lead.',
    auth: 'public',
    params: z.object({ tenantSlug: z.string(), formSlug: z.string() }),
    body: {
      schema: z.record(z.string(), z.unknown()),
      example: { email: 'ada@example.com', name: 'Ada' },
    },
    success: {
      status: 201,
      description: 'Form submitted',
      data: z.object({ submission_id: z.uuid() }),
    },
    errors: [400, 404, 413, 415],
  });
}
