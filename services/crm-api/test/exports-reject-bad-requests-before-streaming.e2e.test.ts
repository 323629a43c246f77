import request from 'supertest';
import { exportFile, useExportStack, type ExportStack } from './support/exports-harness';

/**
 * A bad export request is answered with the JSON failure envelope, before any file starts:
 * no Content-Disposition, nothing that a browser would save.
 */
const stack: ExportStack = useExportStack();
let cookie: string;

beforeAll(async () => {
  ({ cookie } = await stack.tenant('Strict Exports'));
});

const LEAD_ALLOW_LIST =
  'id, email, first_name, last_name, phone, status, source, custom_fields, created_at, updated_at';

async function expectValidationError(body: unknown, message: string) {
  const res = await exportFile(stack, cookie, body);
  expect(res.status).toBe(400);
  expect(res.headers['content-disposition']).toBeUndefined();
  expect(res.json).toEqual({
    success: false,
    error: 'Validation failed',
    code: 'VALIDATION_ERROR',
    message,
    details: { issues: expect.any(Array) },
  });
}

describe('POST /api/exports: 400 before streaming', () => {
  it('an unknown column is named, with the allow-list of the resource', async () => {
    await expectValidationError(
      { resource: 'leads', format: 'csv', columns: ['email', 'password_hash'] },
      `Invalid export request: columns.1: unknown column "password_hash"; allowed for leads: ${LEAD_ALLOW_LIST}`,
    );
    // A column of the other resource is unknown here.
    await expectValidationError(
      { resource: 'deals', format: 'xlsx', columns: ['title', 'email'] },
      'Invalid export request: columns.1: unknown column "email"; allowed for deals: id, title, value, currency, stage, assigned_to, assigned_to_email, lead_id, contact_id, expected_close_date, custom_fields, created_by, created_at, updated_at',
    );
  });

  it.each([
    [{ format: 'csv' }, 'Invalid export request: resource: resource must be one of: leads, deals'],
    [
      { resource: 'contacts', format: 'csv' },
      'Invalid export request: resource: resource must be one of: leads, deals',
    ],
    [
      { resource: 'leads' },
      'Invalid export request: format: format must be one of: csv, xlsx, pdf',
    ],
    [
      { resource: 'leads', format: 'docx' },
      'Invalid export request: format: format must be one of: csv, xlsx, pdf',
    ],
    [
      { resource: 'leads', format: 'csv', sql: 'drop table' },
      'Invalid export request: Unrecognized key: "sql"',
    ],
    [
      { resource: 'leads', format: 'csv', columns: [] },
      'Invalid export request: columns: columns must name at least one column',
    ],
    [
      { resource: 'leads', format: 'csv', columns: 'email' },
      'Invalid export request: columns: columns must be an array of column names',
    ],
    [
      { resource: 'leads', format: 'csv', columns: ['email', 'status', 'email'] },
      'Invalid export request: columns.2: duplicate column "email"',
    ],
    [
      { resource: 'leads', format: 'csv', filters: { status: 'hot' } },
      'Invalid export request: filters.status: status must be one of: new, contacted, qualified, unqualified, converted, lost',
    ],
    [
      { resource: 'leads', format: 'csv', filters: { stage: 'won' } },
      'Invalid export request: filters: Unrecognized key: "stage"',
    ],
    [
      { resource: 'deals', format: 'csv', filters: { stage: 'closed' } },
      'Invalid export request: filters.stage: stage must be one of: lead, qualified, proposal, negotiation, won, lost',
    ],
    [
      { resource: 'deals', format: 'pdf', filters: { assigned_to: 'bob' } },
      'Invalid export request: filters.assigned_to: assigned_to must be an id (uuid)',
    ],
    [
      { resource: 'deals', format: 'csv', filters: 'stage=won' },
      'Invalid export request: filters: Invalid input: expected object, received string',
    ],
    [[{ resource: 'leads', format: 'csv' }], 'Invalid export request: expected a JSON object'],
  ])('%j -> 400 %s', async (body, message) => {
    await expectValidationError(body, message);
  });

  it('malformed JSON -> 400 INVALID_JSON', async () => {
    const res = await request(stack.gatewayUrl())
      .post('/api/exports')
      .set('Cookie', cookie)
      .set('content-type', 'application/json')
      .send('{"resource": "leads",');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'INVALID_JSON' });
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('without a session -> 401 from the gateway', async () => {
    const res = await request(stack.gatewayUrl())
      .post('/api/exports')
      .send({ resource: 'leads', format: 'csv' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, error: 'Unauthorized' });
  });

  it('GET is not an export -> 404', async () => {
    const res = await request(stack.gatewayUrl()).get('/api/exports').set('Cookie', cookie);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });
});
