import { testDb } from '@crm/test-kit';
import request from 'supertest';
import { findEnabledFormBySlugs } from '../src/forms/cross-tenant-lookups';
import { formTenant, submissionRowsOf, type FormTenant } from './support/form-submissions';
import { useStack } from './support/stack';

/**
 * POST /api/public/forms/:tenantSlug/:formSlug/submit, through a real
 * gateway in front of a real crm-api (and once straight at crm-api). Every stored row is
 * read back; every refused request and every honeypot hit is checked to store nothing.
 */
const database = testDb();
const stack = useStack();
afterAll(() => database.close());

type Session = FormTenant;

const tenantWithSlug = () => formTenant(stack, database);

async function createForm(session: Session, body: object): Promise<string> {
  const res = await request(stack.url)
    .post('/api/crm/forms')
    .set('Cookie', session.cookie)
    .send(body);
  expect(res.status).toBe(201);
  return res.body.data.form.id;
}

const submitPath = (tenantSlug: string, formSlug: string) =>
  `/api/public/forms/${tenantSlug}/${formSlug}/submit`;

function submitJson(tenantSlug: string, formSlug: string, body: unknown, base = stack.url) {
  return request(base)
    .post(submitPath(tenantSlug, formSlug))
    .send(body as object);
}

function submitForm(tenantSlug: string, formSlug: string, body: string) {
  return request(stack.url).post(submitPath(tenantSlug, formSlug)).type('form').send(body);
}

const rowsOf = (tenantId: string) => submissionRowsOf(database, tenantId);

interface Envelope {
  type: string;
  tenant_id: string;
  record: { module: string; id: string };
  data: Record<string, unknown>;
}
const envelopes = (rows: Awaited<ReturnType<typeof rowsOf>>) =>
  rows.events.map((e) => e.envelope as Envelope);

const CONTACT_FIELDS = [
  { name: 'email', type: 'email', required: true },
  { name: 'first_name' },
  { name: 'last_name' },
  { name: 'phone', type: 'tel' },
  { name: 'company', required: true },
  { name: 'topic', type: 'select', options: ['sales', 'support'] },
  { name: 'work_email', type: 'email' },
  { name: 'message', type: 'textarea' },
  { name: 'consent', type: 'checkbox', required: true },
];
const VALID = { email: 'ann@example.com', company: 'Acme', consent: true };
const SUBMITTED = {
  success: true,
  // The submission's own random id, never the lead's (forms-public-submit-existing-lead).
  data: { submission_id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
  message: 'Form submitted',
};
const NOT_FOUND = {
  success: false,
  error: 'Not found',
  code: 'NOT_FOUND',
  message: 'Form not found',
  details: null,
};

describe('a valid submission', () => {
  let tenant: Session;
  let formId: string;
  beforeAll(async () => {
    tenant = await tenantWithSlug();
    formId = await createForm(tenant, {
      slug: 'contact',
      name: 'Contact',
      fields: CONTACT_FIELDS,
    });
  });

  it('JSON: 201, a web_form lead with the other fields in custom_fields, the submission and both events', async () => {
    const body = {
      email: '  Ann@Example.COM ',
      first_name: 'Ann',
      last_name: 'Lee',
      phone: '+1 555 0100',
      company: 'Acme',
      topic: 'sales',
      message: 'Call me',
      consent: true,
      utm_source: 'newsletter',
      status: 'converted',
      source: 'partner',
      _hp: '',
    };
    const res = await submitJson(tenant.slug, 'contact', body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual(SUBMITTED);

    const rows = await rowsOf(tenant.tenantId);
    expect(rows.leads).toHaveLength(1);
    const leadId = rows.leads[0].id;
    expect(rows.leads[0]).toMatchObject({
      id: leadId,
      email: 'ann@example.com',
      first_name: 'Ann',
      last_name: 'Lee',
      phone: '+1 555 0100',
      // The submitter chooses neither status nor source: both land in custom_fields.
      status: 'new',
      source: 'web_form',
      custom_fields: {
        company: 'Acme',
        topic: 'sales',
        message: 'Call me',
        consent: true,
        utm_source: 'newsletter',
        status: 'converted',
        source: 'partner',
      },
    });
    expect(rows.submissions).toEqual([
      {
        id: res.body.data.submission_id,
        tenant_id: tenant.tenantId,
        form_id: formId,
        lead_id: leadId,
        // Everything submitted, as submitted, without the honeypot.
        payload: (({ _hp: _drop, ...rest }) => rest)(body),
        created_at: expect.any(Date),
      },
    ]);
    expect(envelopes(rows)).toEqual([
      expect.objectContaining({
        type: 'lead.created',
        tenant_id: tenant.tenantId,
        record: { module: 'leads', id: leadId },
        data: { email: 'ann@example.com', status: 'new', source: 'web_form' },
      }),
      expect.objectContaining({
        type: 'form.submitted',
        tenant_id: tenant.tenantId,
        record: { module: 'forms', id: formId },
        data: { form_id: formId, lead_id: leadId, submission_id: rows.submissions[0].id },
      }),
    ]);
  });

  it('the same email again (any case): one lead gaining only what it lacked, two submissions, lead.updated', async () => {
    const first = await rowsOf(tenant.tenantId);
    const again = {
      email: 'ANN@example.com',
      first_name: 'Annie',
      last_name: '',
      company: 'Acme Corp',
      consent: true,
      referrer: 'ad',
    };
    const res = await submitJson(tenant.slug, 'contact', again);
    expect(res.status).toBe(201);
    expect(res.body).toEqual(SUBMITTED);
    const rows = await rowsOf(tenant.tenantId);
    expect(rows.leads).toHaveLength(1);
    expect(rows.leads[0]).toMatchObject({
      // Stored and non-empty: an anonymous submission does not replace them.
      first_name: 'Ann',
      // Left empty on the form: kept, not cleared.
      last_name: 'Lee',
      phone: '+1 555 0100',
      source: 'web_form',
      custom_fields: {
        company: 'Acme',
        topic: 'sales',
        message: 'Call me',
        consent: true,
        utm_source: 'newsletter',
        status: 'converted',
        source: 'partner',
        referrer: 'ad',
      },
    });
    expect(rows.submissions).toHaveLength(2);
    // What was submitted is kept on the submission, as submitted.
    expect(rows.submissions[1]).toMatchObject({
      id: res.body.data.submission_id,
      form_id: formId,
      lead_id: first.leads[0].id,
      payload: again,
    });
    expect(rows.events.slice(2).map((e) => e.type)).toEqual(['lead.updated', 'form.submitted']);
  });

  it('application/x-www-form-urlencoded: the same rules, values stored as sent', async () => {
    const res = await submitForm(
      tenant.slug,
      'contact',
      'email=bob%40example.com&first_name=Bob&phone=&company=Bob+%26+Co&topic=support&consent=on&_hp=',
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual(SUBMITTED);
    const rows = await rowsOf(tenant.tenantId);
    const lead = rows.leads.find((l) => l.email === 'bob@example.com');
    expect(lead).toMatchObject({
      email: 'bob@example.com',
      first_name: 'Bob',
      last_name: null,
      phone: null,
      source: 'web_form',
      custom_fields: { company: 'Bob & Co', topic: 'support', consent: 'on' },
    });
    expect(rows.submissions.at(-1)).toMatchObject({
      id: res.body.data.submission_id,
      lead_id: lead?.id,
      payload: {
        email: 'bob@example.com',
        first_name: 'Bob',
        phone: '',
        company: 'Bob & Co',
        topic: 'support',
        consent: 'on',
      },
    });
    expect(rows.events.slice(-2).map((e) => e.type)).toEqual(['lead.created', 'form.submitted']);
  });

  it('a lead that came from elsewhere keeps its first source when it later fills in a form', async () => {
    const imported = await request(stack.url)
      .post('/api/v1/import/leads')
      .set('Cookie', tenant.cookie)
      .send({ leads: [{ email: 'cat@example.com', first_name: 'Cat', source: 'csv' }] });
    expect(imported.status).toBe(200);
    const leadId = imported.body.data[0].id;
    const res = await submitJson(tenant.slug, 'contact', {
      email: 'cat@example.com',
      company: 'Cats Ltd',
      consent: true,
    });
    expect(res.status).toBe(201);
    const rows = await rowsOf(tenant.tenantId);
    expect(rows.submissions.at(-1)?.lead_id).toBe(leadId);
    expect(rows.leads.find((l) => l.id === leadId)).toMatchObject({
      first_name: 'Cat',
      source: 'csv_import',
      custom_fields: { company: 'Cats Ltd', consent: true },
    });
    expect(rows.events.slice(-2).map((e) => e.type)).toEqual(['lead.updated', 'form.submitted']);
  });

  it('reaches crm-api directly too: the route needs no identity', async () => {
    const res = await submitJson(
      tenant.slug,
      'contact',
      { ...VALID, email: 'direct@example.com' },
      stack.serviceUrl,
    );
    expect(res.status).toBe(201);
    const rows = await rowsOf(tenant.tenantId);
    const filed = rows.submissions.find((s) => s.id === res.body.data.submission_id);
    expect(rows.leads.find((l) => l.id === filed?.lead_id)?.email).toBe('direct@example.com');
  });

  it('a signed-in caller of another tenant changes nothing: the URL names the tenant', async () => {
    const other = await tenantWithSlug();
    const res = await request(stack.url)
      .post(submitPath(tenant.slug, 'contact'))
      .set('Cookie', other.cookie)
      .set('x-tenant-id', other.tenantId)
      .send({ ...VALID, email: 'via-cookie@example.com' });
    expect(res.status).toBe(201);
    expect((await rowsOf(tenant.tenantId)).leads.map((l) => l.email)).toContain(
      'via-cookie@example.com',
    );
    expect(await rowsOf(other.tenantId)).toEqual({ leads: [], submissions: [], events: [] });
  });
});

describe('unknown tenant, unknown form and disabled form answer alike', () => {
  let tenant: Session;
  let disabledId: string;
  beforeAll(async () => {
    tenant = await tenantWithSlug();
    await createForm(tenant, { slug: 'live', name: 'Live' });
    disabledId = await createForm(tenant, { slug: 'retired', name: 'Retired', enabled: false });
  });

  it('the same 404 NOT_FOUND envelope for all three, nothing stored', async () => {
    const before = await rowsOf(tenant.tenantId);
    const answers = [
      await submitJson('no-such-tenant-0000', 'live', VALID),
      await submitJson(tenant.slug, 'no-such-form', VALID),
      await submitJson(tenant.slug, 'retired', VALID),
      // A slug no tenant or form can have, and the urlencoded variant.
      await submitJson('Not_A_Slug', 'live', VALID),
      await submitForm(tenant.slug, 'retired', 'email=a%40example.com'),
    ];
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
    expect(await rowsOf(tenant.tenantId)).toEqual(before);
  });

  it('even an invalid or honeypot submission gets the 404 first', async () => {
    for (const body of [{}, { ...VALID, _hp: 'bot' }]) {
      const res = await submitJson(tenant.slug, 'retired', body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });

  it('enabled again, the form takes submissions', async () => {
    const on = await request(stack.url)
      .patch(`/api/crm/forms/${disabledId}`)
      .set('Cookie', tenant.cookie)
      .send({ enabled: true });
    expect(on.status).toBe(200);
    const res = await submitJson(tenant.slug, 'retired', VALID);
    expect(res.status).toBe(201);
    expect((await rowsOf(tenant.tenantId)).submissions).toHaveLength(1);
  });

  it('the named lookup returns only tenant, form and fields of an enabled form', async () => {
    const found = await findEnabledFormBySlugs(database.db, tenant.slug, 'live');
    expect(found).toEqual({ tenantId: tenant.tenantId, formId: expect.any(String), fields: [] });
    await request(stack.url)
      .patch(`/api/crm/forms/${found?.formId}`)
      .set('Cookie', tenant.cookie)
      .send({ enabled: false })
      .expect(200);
    expect(await findEnabledFormBySlugs(database.db, tenant.slug, 'live')).toBeUndefined();
    expect(await findEnabledFormBySlugs(database.db, 'x-no-tenant', 'live')).toBeUndefined();
  });
});

describe('tenants apart', () => {
  it('the same form slug in two tenants: each submission lands in the tenant of the URL', async () => {
    const a = await tenantWithSlug();
    const b = await tenantWithSlug();
    const formA = await createForm(a, { slug: 'signup', name: 'A signup' });
    await createForm(b, {
      slug: 'signup',
      name: 'B signup',
      fields: [{ name: 'company', required: true }],
    });
    const res = await submitJson(a.slug, 'signup', { email: 'only-a@example.com' });
    expect(res.status).toBe(201);
    const rowsA = await rowsOf(a.tenantId);
    expect(rowsA.leads.map((l) => l.email)).toEqual(['only-a@example.com']);
    expect(rowsA.submissions.map((s) => s.form_id)).toEqual([formA]);
    expect(await rowsOf(b.tenantId)).toEqual({ leads: [], submissions: [], events: [] });
    // B's form has its own rules.
    const atB = await submitJson(b.slug, 'signup', { email: 'only-a@example.com' });
    expect(atB.status).toBe(400);
    expect(atB.body.message).toBe('company is required');
  });
});

describe('rejected submissions store nothing', () => {
  let tenant: Session;
  beforeAll(async () => {
    tenant = await tenantWithSlug();
    await createForm(tenant, { slug: 'contact', name: 'Contact', fields: CONTACT_FIELDS });
  });

  it.each([
    ['email missing', { company: 'Acme', consent: true }, 'Email is required', 'email'],
    ['email null', { ...VALID, email: null }, 'Email is required', 'email'],
    ['email only spaces', { ...VALID, email: '   ' }, 'Email is required', 'email'],
    ['email not an address', { ...VALID, email: 'not-an-email' }, 'Invalid email', 'email'],
    ['email a number', { ...VALID, email: 42 }, 'Invalid email', 'email'],
    [
      'a required field missing',
      { email: 'a@example.com', consent: true },
      'company is required',
      'company',
    ],
    ['a required field blank', { ...VALID, company: '  ' }, 'company is required', 'company'],
    [
      'a required checkbox unticked',
      { ...VALID, consent: false },
      'consent is required',
      'consent',
    ],
    [
      'a select value not offered',
      { ...VALID, topic: 'jobs' },
      'topic must be one of: sales, support',
      'topic',
    ],
    [
      'an email field that is no address',
      { ...VALID, work_email: 'nope' },
      'work_email must be a valid email address',
      'work_email',
    ],
    [
      'first_name too long',
      { ...VALID, first_name: 'x'.repeat(201) },
      'Invalid first_name: at most 200 characters',
      'first_name',
    ],
    [
      'phone not text',
      { ...VALID, phone: { number: 1 } },
      'Invalid phone: must be a string',
      'phone',
    ],
  ])('JSON, %s -> 400 VALIDATION_ERROR naming it', async (_label, body, message, field) => {
    const before = await rowsOf(tenant.tenantId);
    const res = await submitJson(tenant.slug, 'contact', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Validation failed',
      code: 'VALIDATION_ERROR',
      message,
      details: { field },
    });
    expect(await rowsOf(tenant.tenantId)).toEqual(before);
  });

  it.each([
    ['email missing', 'company=Acme&consent=on', 'Email is required'],
    ['email empty', 'email=&company=Acme&consent=on', 'Email is required'],
    [
      'email twice',
      'email=a%40example.com&email=b%40example.com&company=A&consent=on',
      'Invalid email',
    ],
    ['a required checkbox not sent', 'email=a%40example.com&company=Acme', 'consent is required'],
  ])('urlencoded, %s -> 400 VALIDATION_ERROR', async (_label, body, message) => {
    const before = await rowsOf(tenant.tenantId);
    const res = await submitForm(tenant.slug, 'contact', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', message });
    expect(await rowsOf(tenant.tenantId)).toEqual(before);
  });

  it('a JSON array, more than 100 fields, malformed JSON, no body or another content type', async () => {
    const before = await rowsOf(tenant.tenantId);
    const tooMany = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`extra_${i}`, 'x']));
    const cases: Array<[request.Test, number, object]> = [
      [
        submitJson(tenant.slug, 'contact', [VALID]),
        400,
        { code: 'VALIDATION_ERROR', message: 'The form submission must be an object of fields' },
      ],
      [
        submitJson(tenant.slug, 'contact', { ...VALID, ...tooMany }),
        400,
        {
          code: 'VALIDATION_ERROR',
          message: 'A submission has at most 100 fields',
          details: { maxFields: 100 },
        },
      ],
      [
        request(stack.url)
          .post(submitPath(tenant.slug, 'contact'))
          .set('Content-Type', 'application/json')
          .send('{"email": "a@example.com",'),
        400,
        { code: 'INVALID_JSON' },
      ],
      [
        request(stack.url).post(submitPath(tenant.slug, 'contact')),
        400,
        { code: 'VALIDATION_ERROR', message: 'Email is required' },
      ],
      [
        request(stack.url)
          .post(submitPath(tenant.slug, 'contact'))
          .set('Content-Type', 'text/plain')
          .send('email=a@example.com'),
        415,
        {
          code: 'UNSUPPORTED_MEDIA_TYPE',
          message: 'Send the form as application/json or application/x-www-form-urlencoded',
        },
      ],
    ];
    for (const [pending, status, body] of cases) {
      const res = await pending;
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ success: false, ...body });
    }
    expect(await rowsOf(tenant.tenantId)).toEqual(before);
  });
});

describe('keys that would reach a prototype', () => {
  it('__proto__ in a JSON body is dropped, the rest is stored', async () => {
    const tenant = await tenantWithSlug();
    await createForm(tenant, { slug: 'proto', name: 'Proto' });
    const res = await request(stack.url)
      .post(submitPath(tenant.slug, 'proto'))
      .set('Content-Type', 'application/json')
      .send('{"email":"p@example.com","__proto__":{"polluted":true},"plan":"pro"}');
    expect(res.status).toBe(201);
    const rows = await rowsOf(tenant.tenantId);
    expect(rows.leads[0].custom_fields).toEqual({ plan: 'pro' });
    expect(rows.submissions[0].payload).toEqual({ email: 'p@example.com', plan: 'pro' });
  });
});

describe('honeypot `_hp`', () => {
  let tenant: Session;
  beforeAll(async () => {
    tenant = await tenantWithSlug();
    await createForm(tenant, { slug: 'contact', name: 'Contact', fields: CONTACT_FIELDS });
  });

  it('filled in: the same 201 answer with an id of nothing, and nothing stored', async () => {
    const before = await rowsOf(tenant.tenantId);
    const answers = [
      await submitJson(tenant.slug, 'contact', { ...VALID, _hp: 'http://spam.example' }),
      await submitForm(
        tenant.slug,
        'contact',
        'email=bot%40example.com&company=X&consent=on&_hp=1',
      ),
      // A bot gets no validation feedback either.
      await submitJson(tenant.slug, 'contact', { _hp: 'x' }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(201);
      expect(res.body).toEqual(SUBMITTED);
    }
    expect(new Set(answers.map((r) => r.body.data.submission_id)).size).toBe(3);
    expect(await rowsOf(tenant.tenantId)).toEqual(before);
    expect(before).toEqual({ leads: [], submissions: [], events: [] });
  });

  it('left empty: a normal submission', async () => {
    const res = await submitJson(tenant.slug, 'contact', { ...VALID, _hp: '' });
    expect(res.status).toBe(201);
    const rows = await rowsOf(tenant.tenantId);
    expect(rows.submissions.map((s) => [s.id, s.lead_id])).toEqual([
      [res.body.data.submission_id, rows.leads[0].id],
    ]);
    expect(rows.leads).toHaveLength(1);
    expect(rows.submissions[0].payload).toEqual(VALID);
  });
});

describe('through the gateway from another origin', () => {
  let tenant: Session;
  beforeAll(async () => {
    tenant = await tenantWithSlug();
    await createForm(tenant, { slug: 'embed', name: 'Embedded' });
  });

  it('a cross-origin POST is answered with access-control-allow-origin *', async () => {
    const res = await submitJson(tenant.slug, 'embed', { email: 'cors@example.com' }).set(
      'Origin',
      'https://shop.customer.example.org',
    );
    expect(res.status).toBe(201);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect((await rowsOf(tenant.tenantId)).leads.map((l) => l.email)).toEqual(['cors@example.com']);
  });

  it('the preflight of a JSON POST is allowed for any origin', async () => {
    const res = await request(stack.url)
      .options(submitPath(tenant.slug, 'embed'))
      .set('Origin', 'https://another.example.net')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('POST');
  });
});
