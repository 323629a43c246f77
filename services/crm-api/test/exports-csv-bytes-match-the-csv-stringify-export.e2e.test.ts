import { withTenant, type Trx } from '@crm/shared/db';
import { stringify } from 'csv-stringify';
import { sql } from 'kysely';
import { cellText } from '../src/exports/cell-text';
import type { ExportColumn, ExportRow } from '../src/exports/export-columns';
import { EXPORT_RESOURCES } from '../src/exports/export-resources';
import { exportFile, useExportStack, type ExportStack } from './support/exports-harness';

/**
 * The CSV export is Postgres's COPY turned into CSV on the way out (CsvFromCopy). Its bytes must
 * stay those the export wrote when it read parsed rows through a cursor into csv-stringify: here
 * that earlier writer is the oracle (csv-stringify with the same options, each cell through
 * cellText, over the same query's rows as the driver parses them), and every export through the
 * gateway must equal it byte for byte, over cells built to catch each rule: quotes, commas, line
 * ends, formula starts (full-width too), unicode, NULLs and empty text, JSON in all its shapes,
 * times to the microsecond, thousands of rows and cells bigger than a chunk of the COPY.
 */
const stack: ExportStack = useExportStack();
type Tenant = Awaited<ReturnType<ExportStack['tenant']>>;
let acme: Tenant;
let other: Tenant;

const TRICKY_TEXT = [
  'plain',
  '',
  'comma, inside',
  'say "hi"',
  '"quoted"',
  'line\nbreak',
  'carriage\rreturn',
  'windows\r\nline',
  '=SUM(A1:A2)',
  '+44 20 7946 0000',
  '-2+3',
  '@handle',
  '\tTabbed',
  '\rReturned',
  '\uFF1Dfull-width equals',
  '\uFF0Bfull-width plus',
  '\uFF0Dfull-width minus',
  '\uFF20full-width at',
  '\uFF21 full-width A (0xEF, not a formula)',
  '\uFEFFbyte order mark first',
  'José Núñez',
  '日本語の名前',
  'emoji 🎉 and "quote", comma',
  "O'Brien \\ back\\slash",
  '=HYPERLINK("http://evil.test","click")',
  'a'.repeat(63),
  'b'.repeat(64),
  `${'long, quoted "cell" '.repeat(20)}`,
  ' leading space',
  'trailing space ',
  '\u0001control',
];

/** JSON as text, so Postgres keeps what JavaScript would have rounded or respelled. */
const TRICKY_JSON = [
  '{}',
  '{"company": "Analytical Engines", "seats": 12}',
  '{"price": 1.50, "exact": 1.0, "big": 12345678901234567890, "tiny": 1e-7, "exp": 1E+21, "neg": -0.5}',
  '{"10": "ten", "2": "two", "b": 1, "a": 2, "a: b": "colon space", "x, y": [1, "two", null]}',
  '{"nested": {"deeper": {"list": [{}, [], ""]}}, "flag": true, "none": null}',
  '{"note": "+danger", "formula": "=1+1", "quote": "say \\"hi\\"", "nl": "a\\nb", "ctl": "\\u0001"}',
  '{"unicode": "José 日本 🎉", "escaped": "\\u2028\\u2029", "slash": "a\\/b", "bs": "a\\\\b"}',
  '{"dup": 1, "dup": 2}',
  '[1, 2, 3]',
  '"a JSON string"',
  '"=a formula string"',
  '-5',
  '0',
  'true',
  'null',
];

const TIMES = [
  '2026-01-05T10:00:00.000Z',
  '2026-01-05T10:00:00.123456Z',
  '2026-01-05T10:00:00.999999Z',
  '2026-01-05T10:00:00.000001Z',
  '2026-01-05T10:00:00.29Z',
  '1999-12-31T23:59:59.5Z',
  '2024-02-29T12:34:56.789Z',
  '1969-12-31T23:59:59.9995Z',
  '0044-03-15T12:00:00Z BC',
  '12026-01-05T10:00:00.5Z',
  'infinity',
  '-infinity',
];

const STATUSES = ['new', 'contacted', 'qualified', 'unqualified', 'converted', 'lost'];
const ROWS = 2500;

async function seedLeads(trx: Trx, tenantId: string, prefix: string) {
  const pick = <T>(values: readonly T[], i: number) => values[i % values.length];
  const leads = Array.from({ length: ROWS }, (_, i) => ({
    tenant_id: tenantId,
    email: `${prefix}-${i}@bytes.test`,
    first_name: i % 7 === 0 ? null : pick(TRICKY_TEXT, i),
    last_name: pick(TRICKY_TEXT, i * 3 + 1),
    phone: i % 5 === 0 ? null : pick(TRICKY_TEXT, i * 5 + 2),
    status: pick(STATUSES, i),
    source: i % 11 === 0 ? 'event' : pick(['web_form', 'api_import', 'referral'], i),
    custom_fields: pick(TRICKY_JSON, i),
    created_at: pick(TIMES, i),
    updated_at: pick(TIMES, i + 3),
  }));
  // One cell far bigger than a chunk of the COPY (64 KiB), so a row spans several.
  leads[17].custom_fields = JSON.stringify({ huge: 'x, "y"\n'.repeat(30_000) });
  leads[18].last_name = 'z'.repeat(200_000);
  for (let i = 0; i < leads.length; i += 500)
    await trx
      .insertInto('crm_leads')
      .values(leads.slice(i, i + 500))
      .execute();
}

beforeAll(async () => {
  acme = await stack.tenant('Bytes Acme');
  other = await stack.tenant('Bytes Other');
  await withTenant(stack.database.db, acme.id, (trx) => seedLeads(trx, acme.id, 'acme'));
  await withTenant(stack.database.db, other.id, (trx) => seedLeads(trx, other.id, 'other'));
  await withTenant(stack.database.db, acme.id, async (trx) => {
    const created = (i: number) => new Date(Date.UTC(2026, 1, 1, 9, 0, i, 123)).toISOString();
    const deals = [
      { title: 'Acme renewal', value: '12500.50', currency: 'USD', stage: 'proposal' },
      { title: '=cmd|"/c calc"!A1', stage: 'lead', value: '0' },
      { title: 'Big one', value: '99999999999999.99', expected_close_date: '2026-03-31' },
      // char(3): a shorter code is stored padded, and the driver read it padded.
      { title: 'Short currency', currency: 'EU', expected_close_date: '0099-01-01' },
      { title: 'No date, "quoted", line\nend', expected_close_date: null },
    ];
    for (const [i, deal] of deals.entries())
      await trx
        .insertInto('crm_deals')
        .values({
          tenant_id: acme.id,
          custom_fields: pick(i),
          assigned_to: i === 0 ? acme.userId : null,
          created_by: acme.userId,
          created_at: created(i),
          updated_at: created(i + 1),
          ...deal,
        })
        .execute();
    function pick(i: number) {
      return TRICKY_JSON[i % TRICKY_JSON.length];
    }
  });
}, 60_000);

/** What the export wrote before COPY: csv-stringify over the driver's rows, through cellText. */
async function earlierExport(
  tenantId: string,
  resourceName: 'leads' | 'deals',
  filters: Record<string, unknown> = {},
  keys?: string[],
): Promise<Buffer> {
  const resource = EXPORT_RESOURCES[resourceName];
  const columns: ExportColumn[] = keys
    ? keys.map((key) => resource.columns.find((c) => c.key === key) as ExportColumn)
    : [...resource.columns];
  const rows = await withTenant(stack.database.db, tenantId, async (trx) => {
    const query = resource.rowsQuery(trx, tenantId, filters, columns, 'values');
    return (await sql<ExportRow>`${query}`.execute(trx)).rows;
  });
  const stringifier = stringify({
    header: true,
    columns: columns.map((c) => c.key),
    bom: true,
    record_delimiter: 'windows',
    escape_formulas: true,
    // Any line break quoted, not only the CRLF record delimiter (csvCell's rule).
    quoted_match: /[\r\n]/,
  });
  const chunks: Buffer[] = [];
  stringifier.on('data', (chunk: Buffer) => chunks.push(Buffer.from(chunk)));
  const done = new Promise((resolve, reject) => {
    stringifier.on('end', resolve);
    stringifier.on('error', reject);
  });
  for (const row of rows) stringifier.write(columns.map((c) => cellText(row[c.key], c)));
  stringifier.end();
  await done;
  return Buffer.concat(chunks);
}

async function expectSameBytes(
  tenant: Tenant,
  body: { resource: 'leads' | 'deals'; filters?: Record<string, unknown>; columns?: string[] },
  rows: number,
) {
  const res = await exportFile(stack, tenant.cookie, { ...body, format: 'csv' });
  expect(res.status).toBe(200);
  const expected = await earlierExport(tenant.id, body.resource, body.filters, body.columns);
  // As text first, for a readable difference; then the bytes, BOM included.
  expect(res.bytes.toString('utf8')).toBe(expected.toString('utf8'));
  expect(Buffer.compare(res.bytes, expected)).toBe(0);
  // The oracle is not vacuous: it wrote the rows expected.
  expect(expected.toString('utf8').match(/@bytes\.test|\r\n/g)?.length).toBeGreaterThan(rows);
}

it('all leads, every column: the same bytes as the csv-stringify export', async () => {
  await expectSameBytes(acme, { resource: 'leads' }, ROWS);
});

it('filtered and with chosen columns in a chosen order: the same bytes', async () => {
  await expectSameBytes(
    acme,
    {
      resource: 'leads',
      filters: { status: 'qualified' },
      columns: ['custom_fields', 'email', 'last_name', 'updated_at', 'phone'],
    },
    ROWS / 6,
  );
  // A search with a quote, a backslash and LIKE's wildcards: inlined into the COPY as literals.
  for (const q of ["o'brien \\ back", '100%', 'full_width', 'josé'])
    await expectSameBytes(acme, { resource: 'leads', filters: { q } }, 0);
});

it('a filter matching nothing gives the BOM and the header alone, as before', async () => {
  const res = await exportFile(stack, acme.cookie, {
    resource: 'leads',
    format: 'csv',
    filters: { q: 'nobody-matches-this' },
    columns: ['email', 'first_name'],
  });
  expect(res.bytes).toEqual(Buffer.from('\uFEFFemail,first_name\r\n'));
});

it('deals (money, dates, padded currency, no assignee, a formula title): the same bytes', async () => {
  await expectSameBytes(acme, { resource: 'deals' }, 5);
});

it("another tenant's export holds only its own rows", async () => {
  const res = await exportFile(stack, other.cookie, { resource: 'leads', format: 'csv' });
  const text = res.bytes.toString('utf8');
  expect(text).not.toContain('acme-');
  expect(text.match(/other-\d+@bytes\.test/g)).toHaveLength(ROWS);
  expect(Buffer.compare(res.bytes, await earlierExport(other.id, 'leads'))).toBe(0);
});
