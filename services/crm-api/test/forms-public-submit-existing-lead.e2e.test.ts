import { testDb } from '@crm/test-kit';
import request from 'supertest';
import { formTenant, submissionRowsOf, type FormTenant } from './support/form-submissions';
import { useStack } from './support/stack';

/**
 * An anonymous form submission for an email that is already a lead, through a real gateway
 * and a real crm-api: the answer tells the caller nothing about the lead (the same shape,
 * status and length as for a new email, no lead id), and the lead's non-empty fields stay as
 * the tenant stored them; only empty ones are filled. The submission row keeps every value.
 */
const database = testDb();
const stack = useStack();
afterAll(() => database.close());

type Session = FormTenant;

async function tenantWithForm(): Promise<Session & { formId: string }> {
  const session = await formTenant(stack, database);
  const res = await request(stack.url)
    .post('/api/crm/forms')
    .set('Cookie', session.cookie)
    .send({
      slug: 'contact',
      name: 'Contact',
      fields: [{ name: 'email', type: 'email', required: true }, { name: 'company' }],
    });
  expect(res.status).toBe(201);
  return { ...session, formId: res.body.data.form.id };
}

/** A lead stored by the tenant itself (import), as it would be before any form. */
async function importLead(session: Session, lead: object): Promise<string> {
  const res = await request(stack.url)
    .post('/api/v1/import/leads')
    .set('Cookie', session.cookie)
    .send({ leads: [lead] });
  expect(res.status).toBe(200);
  return res.body.data[0].id;
}

const submit = (session: Session, body: object) =>
  request(stack.url).post(`/api/public/forms/${session.slug}/contact/submit`).send(body);

const rowsOf = (tenantId: string) => submissionRowsOf(database, tenantId);

/** A random (version 4) UUID: it carries no time, unlike the leads' time-ordered ids. */
const RANDOM_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('the answer to a submission', () => {
  let tenant: Session & { formId: string };
  let leadId: string;
  beforeAll(async () => {
    tenant = await tenantWithForm();
    leadId = await importLead(tenant, { email: 'known@example.com', first_name: 'Kim' });
  });

  it('is the same for an existing lead and a new email: status, keys, length, no lead id', async () => {
    const existing = await submit(tenant, { email: 'KNOWN@example.com', company: 'Acme' });
    const fresh = await submit(tenant, { email: 'fresh@example.com', company: 'Acme' });
    const bot = await submit(tenant, { email: 'known@example.com', _hp: 'x' });

    for (const res of [existing, fresh, bot]) {
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'success']);
      expect(Object.keys(res.body.data)).toEqual(['submission_id']);
      expect(res.body).toEqual({
        success: true,
        data: { submission_id: expect.stringMatching(RANDOM_UUID) },
        message: 'Form submitted',
      });
      expect(res.headers['content-length']).toBe(existing.headers['content-length']);
      expect(res.headers.location).toBeUndefined();
    }
    expect(JSON.stringify(existing.body)).not.toContain(leadId);
    expect(JSON.stringify(existing.headers)).not.toContain(leadId);

    const rows = await rowsOf(tenant.tenantId);
    const freshLead = rows.leads.find((l) => l.email === 'fresh@example.com');
    expect(JSON.stringify(fresh.body)).not.toContain(freshLead?.id);
    // The id answered is the stored submission's, of the lead each was filed under.
    expect(rows.submissions.map((s) => [s.id, s.lead_id])).toEqual([
      [existing.body.data.submission_id, leadId],
      [fresh.body.data.submission_id, freshLead?.id],
    ]);
  });
});

describe('a submission for an existing lead', () => {
  let tenant: Session & { formId: string };
  let leadId: string;
  beforeAll(async () => {
    tenant = await tenantWithForm();
    leadId = await importLead(tenant, {
      email: 'cat@example.com',
      first_name: 'Cat',
      phone: '+1 555 0100',
      company: 'Cats Ltd',
      region: '',
      source: 'csv',
    });
  });

  it('keeps every non-empty stored field, fills only the empty ones, and files all values on the submission', async () => {
    const [before] = (await rowsOf(tenant.tenantId)).leads;
    expect(before).toMatchObject({ last_name: null, custom_fields: { region: '' } });
    const submitted = {
      email: 'cat@example.com',
      first_name: 'Mallory',
      last_name: 'Cole',
      phone: '+1 555 9999',
      company: 'Evil Corp',
      region: 'EU',
      plan: 'pro',
      status: 'lost',
    };
    const res = await submit(tenant, submitted);
    expect(res.status).toBe(201);

    const rows = await rowsOf(tenant.tenantId);
    expect(rows.leads).toHaveLength(1);
    expect(rows.leads[0]).toEqual({
      ...before,
      // Empty before: filled from the form.
      last_name: 'Cole',
      custom_fields: { company: 'Cats Ltd', region: 'EU', plan: 'pro', status: 'lost' },
      updated_at: expect.any(Date),
    });
    expect(rows.leads[0].updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(rows.submissions).toEqual([
      {
        id: res.body.data.submission_id,
        tenant_id: tenant.tenantId,
        form_id: tenant.formId,
        lead_id: leadId,
        payload: submitted,
        created_at: expect.any(Date),
      },
    ]);
    expect(rows.events.slice(-2).map((e) => e.envelope)).toEqual([
      expect.objectContaining({
        type: 'lead.updated',
        record: { module: 'leads', id: leadId },
        data: { email: 'cat@example.com', status: 'new', source: 'csv_import' },
      }),
      expect.objectContaining({
        type: 'form.submitted',
        record: { module: 'forms', id: tenant.formId },
        data: { form_id: tenant.formId, lead_id: leadId, submission_id: rows.submissions[0].id },
      }),
    ]);
  });

  it('with nothing empty left to fill, the lead is untouched and only form.submitted is written', async () => {
    const before = await rowsOf(tenant.tenantId);
    const submitted = { email: 'cat@example.com', first_name: 'Eve', company: 'Other' };
    const res = await submit(tenant, submitted);
    expect(res.status).toBe(201);

    const rows = await rowsOf(tenant.tenantId);
    expect(rows.leads).toEqual(before.leads);
    expect(rows.submissions.at(-1)).toMatchObject({
      id: res.body.data.submission_id,
      lead_id: leadId,
      payload: submitted,
    });
    expect(rows.events.slice(before.events.length).map((e) => e.type)).toEqual(['form.submitted']);
  });
});
