import { withTenant, type Trx } from '@crm/shared/db';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import request from 'supertest';
import { exportFile, pdfText, useExportStack, type ExportStack } from './support/exports-harness';

/**
 * POST /api/exports through a real gateway in front of a real crm-api: each format's file is
 * opened and its rows checked against what was seeded; only the caller's tenant ever shows.
 */
const stack: ExportStack = useExportStack();
type Tenant = Awaited<ReturnType<ExportStack['tenant']>>;

let acme: Tenant;
let beta: Tenant;
let acmeViewer: { userId: string; cookie: string };
const leadIds: Record<string, string> = {};
const dealIds: Record<string, string> = {};

const LEAD_COLUMNS = [
  'id',
  'email',
  'first_name',
  'last_name',
  'phone',
  'status',
  'source',
  'custom_fields',
  'created_at',
  'updated_at',
];
const DEAL_COLUMNS = [
  'id',
  'title',
  'value',
  'currency',
  'stage',
  'assigned_to',
  'assigned_to_email',
  'lead_id',
  'contact_id',
  'expected_close_date',
  'custom_fields',
  'created_by',
  'created_at',
  'updated_at',
];

const at = (day: number) => `2026-01-0${day}T10:00:00.000Z`;

interface SeedLead {
  email: string;
  first_name: string;
  last_name: string;
  phone: string | null;
  status: string;
  source: string;
  custom_fields: Record<string, unknown>;
  created_at: string;
}

/** Acme's leads, newest first (the export order). */
const ACME_LEADS: SeedLead[] = [
  {
    email: 'ada@acme.test',
    first_name: 'Ada',
    last_name: 'Lovelace',
    phone: '+44 20 7946 0000',
    status: 'qualified',
    source: 'web_form',
    custom_fields: { company: 'Analytical Engines', seats: 12 },
    created_at: at(5),
  },
  {
    email: 'grace@acme.test',
    first_name: 'Grace',
    last_name: 'Hopper',
    phone: null,
    status: 'new',
    source: 'api_import',
    custom_fields: {},
    created_at: at(4),
  },
  {
    email: 'mallory@acme.test',
    first_name: '=HYPERLINK("http://evil.test","click")',
    last_name: '@SUM(1+1)',
    phone: '-2+3',
    status: 'contacted',
    source: 'referral',
    custom_fields: { note: '+danger' },
    created_at: at(3),
  },
  {
    email: 'jose@acme.test',
    first_name: 'José',
    last_name: 'Núñez',
    phone: '555 0100',
    status: 'lost',
    source: 'web_form',
    custom_fields: {},
    created_at: at(2),
  },
  {
    email: 'tab@acme.test',
    first_name: '\tTabbed',
    last_name: '\rReturned',
    phone: null,
    status: 'new',
    source: 'api_import',
    custom_fields: {},
    created_at: at(1),
  },
];
const BETA_LEADS: SeedLead[] = [
  {
    email: 'secret-b1@beta.test',
    first_name: 'Betty',
    last_name: 'Secret',
    phone: '+1 555 9999',
    status: 'qualified',
    source: 'web_form',
    custom_fields: { company: 'Beta Secret Corp' },
    created_at: at(6),
  },
  {
    email: 'secret-b2@beta.test',
    first_name: 'Bruno',
    last_name: 'Hidden',
    phone: null,
    status: 'new',
    source: 'api_import',
    custom_fields: {},
    created_at: at(1),
  },
];

async function insertLeads(trx: Trx, tenantId: string, leads: SeedLead[]) {
  for (const lead of leads) {
    const row = await trx
      .insertInto('crm_leads')
      .values({
        ...lead,
        tenant_id: tenantId,
        custom_fields: JSON.stringify(lead.custom_fields),
        updated_at: lead.created_at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    leadIds[lead.email] = row.id;
  }
}

async function insertDeal(
  trx: Trx,
  tenantId: string,
  deal: {
    title: string;
    value?: string;
    currency?: string;
    stage?: string;
    assigned_to?: string | null;
    lead_id?: string | null;
    expected_close_date?: string | null;
    created_at: string;
  },
) {
  const row = await trx
    .insertInto('crm_deals')
    .values({ ...deal, tenant_id: tenantId, custom_fields: '{}', updated_at: deal.created_at })
    .returning('id')
    .executeTakeFirstOrThrow();
  dealIds[deal.title] = row.id;
}

beforeAll(async () => {
  acme = await stack.tenant('Acme Exporters');
  beta = await stack.tenant('Beta Secret Tenant');
  acmeViewer = await stack.member(acme.id, 'viewer');
  await withTenant(stack.database.db, acme.id, async (trx) => {
    await insertLeads(trx, acme.id, ACME_LEADS);
    await insertDeal(trx, acme.id, {
      title: 'Acme renewal',
      value: '12500.50',
      currency: 'USD',
      stage: 'proposal',
      assigned_to: acme.userId,
      lead_id: leadIds['ada@acme.test'],
      expected_close_date: '2026-03-31',
      created_at: '2026-02-03T09:00:00.000Z',
    });
    await insertDeal(trx, acme.id, {
      title: 'Globex pilot',
      value: '0',
      currency: 'EUR',
      stage: 'won',
      created_at: '2026-02-02T09:00:00.000Z',
    });
    await insertDeal(trx, acme.id, {
      title: '=cmd|"/c calc"!A1',
      stage: 'lead',
      created_at: '2026-02-01T09:00:00.000Z',
    });
  });
  await withTenant(stack.database.db, beta.id, async (trx) => {
    await insertLeads(trx, beta.id, BETA_LEADS);
    await insertDeal(trx, beta.id, {
      title: 'Beta secret deal',
      value: '999.00',
      stage: 'proposal',
      assigned_to: beta.userId,
      created_at: '2026-02-04T09:00:00.000Z',
    });
  });
});

const today = () => new Date().toISOString().slice(0, 10);

/** Parses an exported CSV: a UTF-8 BOM, then a header row and one record per row. */
function csvRecords(bytes: Buffer): { header: string[]; records: Record<string, string>[] } {
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const rows = parse(bytes, { bom: true }) as string[][];
  const [header, ...body] = rows;
  return {
    header,
    records: body.map((cells) => Object.fromEntries(header.map((h, i) => [h, cells[i]]))),
  };
}

function expectDownload(
  res: Awaited<ReturnType<typeof exportFile>>,
  resource: string,
  ext: string,
  contentType: string,
) {
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe(contentType);
  expect([today(), new Date(Date.now() - 60_000).toISOString().slice(0, 10)]).toContain(
    /filename="[a-z]+-(\d{4}-\d{2}-\d{2})\./.exec(res.headers['content-disposition'] ?? '')?.[1],
  );
  expect(res.headers['content-disposition']).toMatch(
    new RegExp(`^attachment; filename="${resource}-\\d{4}-\\d{2}-\\d{2}\\.${ext}"$`),
  );
  expect(res.headers['cache-control']).toBe('no-store');
}

async function readXlsx(bytes: Buffer): Promise<ExcelJS.Worksheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  expect(workbook.worksheets).toHaveLength(1);
  return workbook.worksheets[0];
}

/** Every row of a sheet as an array of cell values (row 1 is the header). */
function sheetRows(sheet: ExcelJS.Worksheet): ExcelJS.CellValue[][] {
  const rows: ExcelJS.CellValue[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row) => {
    rows.push(Array.from({ length: sheet.columnCount }, (_, i) => row.getCell(i + 1).value));
  });
  return rows;
}

describe('CSV', () => {
  it("leads: every allow-listed column, a header row, Acme's rows newest first with their exact values", async () => {
    const res = await exportFile(stack, acme.cookie, { resource: 'leads', format: 'csv' });
    expectDownload(res, 'leads', 'csv', 'text/csv; charset=utf-8');
    const { header, records } = csvRecords(res.bytes);
    expect(header).toEqual(LEAD_COLUMNS);
    expect(records.map((r) => r.email)).toEqual(ACME_LEADS.map((l) => l.email));
    expect(records[0]).toEqual({
      id: leadIds['ada@acme.test'],
      email: 'ada@acme.test',
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: "'+44 20 7946 0000",
      status: 'qualified',
      source: 'web_form',
      custom_fields: expect.any(String),
      created_at: at(5),
      updated_at: at(5),
    });
    expect(JSON.parse(records[0].custom_fields)).toEqual(ACME_LEADS[0].custom_fields);
    expect(records[1]).toMatchObject({ phone: '', custom_fields: '{}' });
    expect(records[3]).toMatchObject({ first_name: 'José', last_name: 'Núñez' });
  });

  it('neutralises formula injection: cells starting with = + - @ tab or CR get a leading quote', async () => {
    const res = await exportFile(stack, acme.cookie, { resource: 'leads', format: 'csv' });
    const { records } = csvRecords(res.bytes);
    const mallory = records.find((r) => r.email === 'mallory@acme.test');
    expect(mallory).toMatchObject({
      first_name: `'=HYPERLINK("http://evil.test","click")`,
      last_name: "'@SUM(1+1)",
      phone: "'-2+3",
      // JSON starts with `{`: nothing to neutralise.
      custom_fields: '{"note":"+danger"}',
    });
    const tab = records.find((r) => r.email === 'tab@acme.test');
    expect(tab).toMatchObject({ first_name: "'\tTabbed", last_name: "'\rReturned" });
    // Ordinary text is untouched.
    expect(records.find((r) => r.email === 'grace@acme.test')?.first_name).toBe('Grace');

    const deals = csvRecords(
      (await exportFile(stack, acme.cookie, { resource: 'deals', format: 'csv' })).bytes,
    ).records;
    expect(deals.map((d) => d.title)).toContain(`'=cmd|"/c calc"!A1`);
  });

  it('deals: all columns, money and dates as stored, the assignee resolved to an email', async () => {
    const res = await exportFile(stack, acme.cookie, { resource: 'deals', format: 'csv' });
    expectDownload(res, 'deals', 'csv', 'text/csv; charset=utf-8');
    const { header, records } = csvRecords(res.bytes);
    expect(header).toEqual(DEAL_COLUMNS);
    expect(records.map((r) => r.title)).toEqual([
      'Acme renewal',
      'Globex pilot',
      `'=cmd|"/c calc"!A1`,
    ]);
    expect(records[0]).toEqual({
      id: dealIds['Acme renewal'],
      title: 'Acme renewal',
      value: '12500.50',
      currency: 'USD',
      stage: 'proposal',
      assigned_to: acme.userId,
      assigned_to_email: acme.email,
      lead_id: leadIds['ada@acme.test'],
      contact_id: '',
      expected_close_date: '2026-03-31',
      custom_fields: '{}',
      created_by: '',
      created_at: '2026-02-03T09:00:00.000Z',
      updated_at: '2026-02-03T09:00:00.000Z',
    });
    expect(records[1]).toMatchObject({ value: '0.00', currency: 'EUR', assigned_to_email: '' });
  });

  it('columns: only the ones asked for, in the order asked', async () => {
    const res = await exportFile(stack, acme.cookie, {
      resource: 'leads',
      format: 'csv',
      columns: ['status', 'email'],
    });
    const { header, records } = csvRecords(res.bytes);
    expect(header).toEqual(['status', 'email']);
    expect(records[0]).toEqual({ status: 'qualified', email: 'ada@acme.test' });
    expect(res.bytes.toString('utf8')).not.toContain('Lovelace');
  });

  it('an export that matches nothing is the header row alone', async () => {
    const res = await exportFile(stack, acme.cookie, {
      resource: 'leads',
      format: 'csv',
      filters: { status: 'converted' },
    });
    expect(res.status).toBe(200);
    expect(csvRecords(res.bytes)).toEqual({ header: LEAD_COLUMNS, records: [] });
  });
});

describe('filters', () => {
  async function leadEmails(filters: Record<string, unknown>): Promise<string[]> {
    const res = await exportFile(stack, acme.cookie, {
      resource: 'leads',
      format: 'csv',
      filters,
      columns: ['email'],
    });
    expect(res.status).toBe(200);
    return csvRecords(res.bytes).records.map((r) => r.email);
  }

  async function dealTitles(filters: Record<string, unknown>): Promise<string[]> {
    const res = await exportFile(stack, acme.cookie, {
      resource: 'deals',
      format: 'csv',
      filters,
      columns: ['title'],
    });
    expect(res.status).toBe(200);
    return csvRecords(res.bytes).records.map((r) => r.title);
  }

  it('leads by status, by source (normalised as on import), by search, and combined', async () => {
    expect(await leadEmails({ status: 'qualified' })).toEqual(['ada@acme.test']);
    expect(await leadEmails({ source: ' Web-Form ' })).toEqual(['ada@acme.test', 'jose@acme.test']);
    expect(await leadEmails({ q: 'hopp' })).toEqual(['grace@acme.test']);
    expect(await leadEmails({ q: 'Ada Love' })).toEqual(['ada@acme.test']);
    expect(await leadEmails({ q: '%' })).toEqual([]);
    expect(await leadEmails({ status: 'lost', source: 'web_form' })).toEqual(['jose@acme.test']);
    expect(await leadEmails({})).toHaveLength(ACME_LEADS.length);
  });

  it('deals by stage and by assignee', async () => {
    expect(await dealTitles({ stage: 'won' })).toEqual(['Globex pilot']);
    expect(await dealTitles({ assigned_to: acme.userId })).toEqual(['Acme renewal']);
    // Beta's owner is no assignee of Acme's: nothing, not Beta's deal.
    expect(await dealTitles({ assigned_to: beta.userId })).toEqual([]);
  });
});

describe('XLSX', () => {
  it('leads read back with exceljs: a header of labels, typed cells, formulas kept as plain text', async () => {
    const res = await exportFile(stack, acme.cookie, { resource: 'leads', format: 'xlsx' });
    expectDownload(
      res,
      'leads',
      'xlsx',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    const sheet = await readXlsx(res.bytes);
    expect(sheet.name).toBe('Leads');
    const [header, ...rows] = sheetRows(sheet);
    expect(header).toEqual([
      'ID',
      'Email',
      'First name',
      'Last name',
      'Phone',
      'Status',
      'Source',
      'Custom fields',
      'Created',
      'Updated',
    ]);
    expect(rows.map((r) => r[1])).toEqual(ACME_LEADS.map((l) => l.email));
    expect(rows[0]).toEqual([
      leadIds['ada@acme.test'],
      'ada@acme.test',
      'Ada',
      'Lovelace',
      '+44 20 7946 0000',
      'qualified',
      'web_form',
      expect.any(String),
      new Date(at(5)),
      new Date(at(5)),
    ]);
    expect(JSON.parse(rows[0][7] as string)).toEqual(ACME_LEADS[0].custom_fields);
    expect(rows[1][4]).toBeNull();
    // A string cell is never a formula in XLSX: the text stays exactly as stored.
    const mallory = sheet.getRow(4);
    expect(mallory.getCell(2).value).toBe('mallory@acme.test');
    expect(mallory.getCell(3).value).toBe('=HYPERLINK("http://evil.test","click")');
    expect(mallory.getCell(3).type).toBe(ExcelJS.ValueType.String);
    expect(mallory.getCell(3).formula).toBeUndefined();
  });

  it('deals: value as a number, dates as date cells, chosen columns only', async () => {
    const res = await exportFile(stack, acme.cookie, {
      resource: 'deals',
      format: 'xlsx',
      columns: ['title', 'value', 'stage', 'expected_close_date', 'created_at'],
    });
    const sheet = await readXlsx(res.bytes);
    expect(sheetRows(sheet)).toEqual([
      ['Title', 'Value', 'Stage', 'Expected close', 'Created'],
      [
        'Acme renewal',
        12500.5,
        'proposal',
        new Date('2026-03-31T00:00:00.000Z'),
        new Date('2026-02-03T09:00:00.000Z'),
      ],
      ['Globex pilot', 0, 'won', null, new Date('2026-02-02T09:00:00.000Z')],
      ['=cmd|"/c calc"!A1', 0, 'lead', null, new Date('2026-02-01T09:00:00.000Z')],
    ]);
  });

  it('an empty export is the header row alone', async () => {
    const res = await exportFile(stack, acme.cookie, {
      resource: 'deals',
      format: 'xlsx',
      filters: { stage: 'negotiation' },
      columns: ['title', 'stage'],
    });
    expect(sheetRows(await readXlsx(res.bytes))).toEqual([['Title', 'Stage']]);
  });
});

describe('PDF', () => {
  it('leads: a titled table with the tenant, the date, page numbers and every row', async () => {
    const res = await exportFile(stack, acme.cookie, { resource: 'leads', format: 'pdf' });
    expectDownload(res, 'leads', 'pdf', 'application/pdf');
    expect(res.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfText(res.bytes);
    expect(text).toEqual(
      expect.arrayContaining([
        'Leads export',
        'Tenant: Acme Exporters',
        expect.stringMatching(/^Generated: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/),
        'Page 1',
        'Email',
        'First name',
        'Created',
        '5 rows.',
      ]),
    );
    expect(text.find((t) => t.startsWith('Generated: '))).toContain(today());
    for (const lead of ACME_LEADS) {
      expect(text).toEqual(
        expect.arrayContaining([
          lead.email,
          lead.status,
          `${lead.created_at.slice(0, 10)} 10:00 UTC`,
        ]),
      );
    }
    expect(text).toEqual(expect.arrayContaining(['José', 'Núñez', 'Lovelace']));
    // The PDF's default columns leave the id out, for a readable page.
    expect(text.join('\n')).not.toContain(leadIds['ada@acme.test']);
  });

  it('deals: chosen columns, grouped money', async () => {
    const res = await exportFile(stack, acme.cookie, {
      resource: 'deals',
      format: 'pdf',
      columns: ['title', 'value', 'currency', 'assigned_to_email'],
    });
    expect(res.status).toBe(200);
    const text = pdfText(res.bytes);
    expect(text).toEqual(
      expect.arrayContaining([
        'Deals export',
        'Title',
        'Assigned to',
        'Acme renewal',
        '12,500.50',
        'USD',
        acme.email,
        'Globex pilot',
        '0.00',
        '3 rows.',
      ]),
    );
  });

  it('a long export runs over pages: each numbered, each with the table header', async () => {
    const many = await stack.tenant('Many Leads Inc');
    await withTenant(stack.database.db, many.id, (trx) =>
      trx
        .insertInto('crm_leads')
        .values(
          Array.from({ length: 120 }, (_, i) => ({
            tenant_id: many.id,
            email: `lead-${String(i).padStart(3, '0')}@many.test`,
            custom_fields: '{}',
          })),
        )
        .execute(),
    );
    const res = await exportFile(stack, many.cookie, {
      resource: 'leads',
      format: 'pdf',
      columns: ['email', 'status'],
    });
    const text = pdfText(res.bytes);
    const pages = text.filter((t) => /^Page \d+$/.test(t));
    expect(pages.length).toBeGreaterThan(1);
    expect(pages).toEqual(pages.map((_, i) => `Page ${i + 1}`));
    expect(text.filter((t) => t === 'Email')).toHaveLength(pages.length);
    for (let i = 0; i < 120; i += 1) {
      expect(text).toContain(`lead-${String(i).padStart(3, '0')}@many.test`);
    }
    expect(text).toContain('120 rows.');
  });

  it('an export that matches nothing says so', async () => {
    const res = await exportFile(stack, acme.cookie, {
      resource: 'leads',
      format: 'pdf',
      filters: { q: 'nobody-at-all' },
    });
    expect(pdfText(res.bytes)).toContain('No rows match this export.');
  });
});

describe('tenant isolation', () => {
  it.each(['csv', 'xlsx', 'pdf'] as const)(
    "%s: Acme's leads and deals exports never carry a byte of Beta's rows, and Beta's only Beta's",
    async (format) => {
      const betaStrings = [
        ...BETA_LEADS.flatMap((l) => [l.email, l.last_name]),
        'Beta Secret Corp',
        'Beta secret deal',
        leadIds['secret-b1@beta.test'],
        dealIds['Beta secret deal'],
      ];
      for (const resource of ['leads', 'deals']) {
        const res = await exportFile(stack, acme.cookie, {
          resource,
          format,
          columns:
            resource === 'leads' ? ['id', 'email', 'last_name', 'custom_fields'] : ['id', 'title'],
        });
        expect(res.status).toBe(200);
        const content =
          format === 'csv'
            ? res.bytes.toString('utf8')
            : format === 'pdf'
              ? pdfText(res.bytes).join('\n')
              : JSON.stringify(sheetRows(await readXlsx(res.bytes)));
        for (const secret of betaStrings) expect(content).not.toContain(secret);
        expect(content).toContain(resource === 'leads' ? 'ada@acme.test' : 'Acme renewal');
      }
      const betaRes = await exportFile(stack, beta.cookie, {
        resource: 'leads',
        format: 'csv',
        columns: ['id', 'email'],
      });
      expect(csvRecords(betaRes.bytes).records).toEqual(
        BETA_LEADS.map((l) => ({ id: leadIds[l.email], email: l.email })),
      );
    },
  );

  it('a tenant header naming another tenant is refused before any export runs', async () => {
    const res = await request(stack.gatewayUrl())
      .post('/api/exports')
      .set('Cookie', acme.cookie)
      .set('x-tenant-id', beta.id)
      .send({ resource: 'leads', format: 'csv' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 'TENANT_ACCESS_DENIED' });
  });
});

describe('viewers', () => {
  it('a viewer may export (a read), and still may not write', async () => {
    const res = await exportFile(stack, acmeViewer.cookie, {
      resource: 'leads',
      format: 'csv',
      columns: ['email'],
    });
    expect(res.status).toBe(200);
    expect(csvRecords(res.bytes).records.map((r) => r.email)).toEqual(
      ACME_LEADS.map((l) => l.email),
    );
    const write = await request(stack.gatewayUrl())
      .post('/api/crm/deals')
      .set('Cookie', acmeViewer.cookie)
      .send({ title: 'Viewer deal' });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ code: 'FORBIDDEN', message: 'Viewers may only read' });
  });

  it('the exemption is for exactly POST /api/exports: another spelling of the path stays refused', async () => {
    const res = await request(stack.gatewayUrl())
      .post('/api/exports/')
      .set('Cookie', acmeViewer.cookie)
      .send({ resource: 'leads', format: 'csv' });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'FORBIDDEN', message: 'Viewers may only read' });
  });
});
