import { addMember, createAccount, sessionClient, signIn, testDb } from '@crm/test-kit';
import request from 'supertest';
import { formTenant, submissionRowsOf, type FormTenant } from './support/form-submissions';
import { useStack } from './support/stack';

/*
 * GET /api/crm/forms/:id/submissions through a real gateway in front of a real crm-api: the
 * submissions made through the public route, newest first by default, paged, each with what
 * was submitted (never the honeypot) and its lead; another tenant's form, an unknown id or a
 * malformed one is a 404; a member or a viewer is refused like every form route.
 */
const database = testDb();
const stack = useStack();
afterAll(() => database.close());

let owner: FormTenant;
let other: FormTenant;
let formId = '';
let otherFormId = '';

async function createForm(tenant: FormTenant, slug: string): Promise<string> {
  const res = await sessionClient(stack.url, tenant.cookie).post('/api/crm/forms', {
    slug,
    name: 'Contact us',
    fields: [{ name: 'email', type: 'email', required: true }, { name: 'company' }],
  });
  expect(res.status).toBe(201);
  return res.body.data.form.id;
}

function submit(tenant: FormTenant, slug: string, body: Record<string, string>) {
  return request(stack.url)
    .post(`/api/public/forms/${tenant.slug}/${slug}/submit`)
    .type('form')
    .send(body);
}

beforeAll(async () => {
  owner = await formTenant(stack, database);
  other = await formTenant(stack, database);
  formId = await createForm(owner, 'contact-us');
  otherFormId = await createForm(other, 'contact-us');
  for (const [email, company] of [
    ['ann@example.com', 'Acme'],
    ['bob@example.com', 'Bobco'],
    ['cy@example.com', 'Cyco'],
  ]) {
    const res = await submit(owner, 'contact-us', { email, company, _hp: '' });
    expect(res.status).toBe(201);
  }
  expect((await submit(other, 'contact-us', { email: 'eve@example.com' })).status).toBe(201);
});

describe('GET /api/crm/forms/:id/submissions', () => {
  it("answers the form's submissions as a Page, newest first, with payload and lead", async () => {
    const stored = (await submissionRowsOf(database, owner.tenantId)).submissions;
    const res = await sessionClient(stack.url, owner.cookie).get(
      `/api/crm/forms/${formId}/submissions`,
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'items',
      'page',
      'pageSize',
      'total',
      'totalPages',
    ]);
    expect(res.body.total).toBe(3);
    expect(res.body.items.map((i: { payload: { email: string } }) => i.payload.email)).toEqual([
      'cy@example.com',
      'bob@example.com',
      'ann@example.com',
    ]);
    const newest = stored.find((s) => s.id === res.body.items[0].id);
    expect(res.body.items[0]).toEqual({
      id: newest?.id,
      form_id: formId,
      lead_id: newest?.lead_id,
      payload: { email: 'cy@example.com', company: 'Cyco' },
      created_at: newest?.created_at.toISOString(),
    });
  });

  it('pages and sorts oldest first on request', async () => {
    const res = await sessionClient(stack.url, owner.cookie).get(
      `/api/crm/forms/${formId}/submissions?pageSize=2&page=2&sortOrder=asc`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(res.body.items.map((i: { payload: { email: string } }) => i.payload.email)).toEqual([
      'cy@example.com',
    ]);
  });

  it("is a 404 for another tenant's form, an unknown id or a malformed one", async () => {
    for (const id of [otherFormId, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await sessionClient(stack.url, owner.cookie).get(
        `/api/crm/forms/${id}/submissions`,
      );
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        success: false,
        code: 'NOT_FOUND',
        message: 'Form not found',
      });
    }
  });

  it('is a 400 for a sort it does not offer', async () => {
    const res = await sessionClient(stack.url, owner.cookie).get(
      `/api/crm/forms/${formId}/submissions?sortBy=payload`,
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('is refused to a member and a viewer (403)', async () => {
    for (const role of ['member', 'viewer'] as const) {
      const user = await createAccount(database, `forms-${role}`);
      await addMember(database, owner.tenantId, user.id, role);
      const cookie = await signIn(stack.gateway.app, user.email);
      const res = await sessionClient(stack.url, cookie).get(
        `/api/crm/forms/${formId}/submissions`,
      );
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
  });
});
