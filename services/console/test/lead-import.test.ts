import { parse } from 'csv-parse/sync';
import { ApiError } from '../src/api/client';
import type { ImportAnswer, ImportLead } from '../src/api/lead-import';
import { guessMapping, leadOf, mappingProblems } from '../src/screens/lead-import/column-mapping';
import { cellText, formatOf } from '../src/screens/lead-import/read-spreadsheet';
import { rejectedRowsCsv } from '../src/screens/lead-import/rejected-rows';
import {
  initialState,
  MAX_REQUEST_CHARS,
  pace,
  runImport,
  type ImportState,
} from '../src/screens/lead-import/run-import';

describe('mapping a file’s columns to lead fields', () => {
  it('recognises the usual titles, an export’s own keys, and makes the rest custom fields', () => {
    expect(
      guessMapping([
        'E-mail Address',
        'First Name',
        'surname',
        'Mobile',
        'Lead Status',
        'source',
        'Company',
        'id',
        'custom_fields',
        'created_at',
      ]),
    ).toEqual([
      'email',
      'first_name',
      'last_name',
      'phone',
      'status',
      'source',
      'custom',
      'skip',
      'custom_json',
      'skip',
    ]);
  });

  it('gives a lead field to its first column only', () => {
    expect(guessMapping(['email', 'Email'])).toEqual(['email', 'custom']);
  });

  it('needs an email column and each lead field at most once', () => {
    expect(mappingProblems(['first_name', 'custom'], ['a', 'b'])).toEqual([
      'Choose the column that holds the email: every lead needs one.',
    ]);
    expect(mappingProblems(['email', 'phone', 'phone'], ['e', 'Tel', 'Mobile'])).toEqual([
      'Phone is chosen for 2 columns (Tel, Mobile): choose it for one.',
    ]);
    expect(mappingProblems(['email', 'custom', 'custom'], ['e', 'x', 'y'])).toEqual([]);
  });

  it('builds the row the import takes, leaving empty cells out', () => {
    const headers = ['Email', 'First', 'Status', 'Company', 'Notes', 'custom_fields', 'id'];
    const mapping = guessMapping(headers);
    mapping[4] = 'skip';
    expect(
      leadOf(
        ['ada@x.test', '  ', 'qualified', 'Acme', 'ignored', '{"tier":"gold"}', 'some-id'],
        mapping,
        headers,
      ),
    ).toEqual({
      email: 'ada@x.test',
      status: 'qualified',
      custom_fields: { Company: 'Acme', tier: 'gold' },
    });
    // A custom-fields cell that is not a JSON object stays text under its column.
    expect(leadOf(['b@x.test', '', '', '', '', 'not json'], mapping, headers)).toEqual({
      email: 'b@x.test',
      custom_fields: { custom_fields: 'not json' },
    });
    expect(leadOf(['c@x.test'], mapping, headers)).toEqual({ email: 'c@x.test' });
  });
});

describe('reading a file', () => {
  it('knows a file by its name, then its type', () => {
    expect(formatOf({ name: 'Leads.XLSX', type: '' })).toBe('xlsx');
    expect(formatOf({ name: 'leads.csv', type: 'text/plain' })).toBe('csv');
    expect(formatOf({ name: 'leads', type: 'text/csv' })).toBe('csv');
    expect(formatOf({ name: 'leads.xls', type: 'application/vnd.ms-excel' })).toBeNull();
  });

  it('turns spreadsheet cells into text', () => {
    expect(cellText(null)).toBe('');
    expect(cellText(4420794600)).toBe('4420794600');
    expect(cellText(true)).toBe('true');
    expect(cellText(new Date('2026-01-05T10:00:00Z'))).toBe('2026-01-05T10:00:00.000Z');
  });
});

describe('sending the rows in chunks', () => {
  const rows = Array.from({ length: 25 }, (_, i) => [`lead${i}@x.test`]);
  const toLead = (row: string[]): ImportLead => ({ email: row[0] });
  const accepted = (leads: ImportLead[]): ImportAnswer => ({
    success: true,
    imported: leads.length,
    failed: 0,
    errors: [],
  });
  let clock = 0;
  const now = () => (clock += 1000);

  it('sends chunks of at most chunkSize rows and reports each', async () => {
    const sent: number[] = [];
    const states: ImportState[] = [];
    const end = await runImport(initialState(rows.length), {
      rows,
      toLead,
      chunkSize: 10,
      send: async (leads) => (sent.push(leads.length), accepted(leads)),
      stopRequested: () => false,
      onState: (s) => states.push(s),
      now,
    });
    expect(sent).toEqual([10, 10, 5]);
    expect(states.map((s) => s.next)).toEqual([0, 10, 20, 25]);
    expect(end).toMatchObject({ next: 25, imported: 25, rejected: [] });
    expect(pace(end).rate).toBeGreaterThan(0);
    expect(pace(end).secondsLeft).toBe(0);
  });

  it('maps per-row errors back to the file’s lines and cells', async () => {
    const end = await runImport(initialState(rows.length), {
      rows,
      toLead,
      chunkSize: 10,
      send: async (leads) =>
        leads[0].email === 'lead10@x.test'
          ? {
              success: true,
              imported: 9,
              failed: 1,
              errors: [{ index: 3, error: 'Invalid email' }],
            }
          : accepted(leads),
      stopRequested: () => false,
      onState: () => undefined,
      now,
    });
    expect(end.imported).toBe(24);
    expect(end.rejected).toEqual([{ line: 15, cells: ['lead13@x.test'], error: 'Invalid email' }]);
  });

  it('stops after the request under way when cancelled, and resumes from the next row', async () => {
    let stop = false;
    const sent: string[] = [];
    const first = await runImport(initialState(rows.length), {
      rows,
      toLead,
      chunkSize: 10,
      send: async (leads) => {
        sent.push(leads[0].email as string);
        stop = true;
        return accepted(leads);
      },
      stopRequested: () => stop,
      onState: () => undefined,
      now,
    });
    expect(sent).toEqual(['lead0@x.test']);
    expect(first).toMatchObject({ next: 10, imported: 10 });
    const rest = await runImport(first, {
      rows,
      toLead,
      chunkSize: 10,
      send: async (leads) => (sent.push(leads[0].email as string), accepted(leads)),
      stopRequested: () => false,
      onState: () => undefined,
      now,
    });
    expect(sent).toEqual(['lead0@x.test', 'lead10@x.test', 'lead20@x.test']);
    expect(rest).toMatchObject({ next: 25, imported: 25 });
  });

  it('waits out a 429 and sends the same chunk again', async () => {
    const slept: number[] = [];
    let calls = 0;
    const waits: (number | null)[] = [];
    const end = await runImport(initialState(5), {
      rows: rows.slice(0, 5),
      toLead,
      chunkSize: 10,
      send: async (leads) => {
        if (++calls === 1) throw new ApiError(429, 'RATE_LIMITED', 'Too many requests', 1);
        return accepted(leads);
      },
      stopRequested: () => false,
      onState: (s) => waits.push(s.waitingUntil),
      sleep: async (ms) => void slept.push(ms),
      now,
    });
    expect(calls).toBe(2);
    expect(slept.reduce((a, b) => a + b, 0)).toBe(1000);
    expect(waits.some((w) => w !== null)).toBe(true);
    expect(end).toMatchObject({ next: 5, imported: 5, waitingUntil: null });
  });

  it('rejects the row a whole-request 400 names and sends the rest of the chunk', async () => {
    const bodies: string[][] = [];
    const end = await runImport(initialState(4), {
      rows: rows.slice(0, 4),
      toLead,
      chunkSize: 10,
      send: async (leads) => {
        bodies.push(leads.map((l) => l.email as string));
        if (leads.length === 4) {
          throw new ApiError(
            400,
            'VALIDATION_ERROR',
            'Validation failed',
            undefined,
            'Invalid request body: leads.2.first_name: must not contain U+0000 (NUL)',
          );
        }
        return accepted(leads);
      },
      stopRequested: () => false,
      onState: () => undefined,
      now,
    });
    expect(bodies[1]).toEqual(['lead0@x.test', 'lead1@x.test', 'lead3@x.test']);
    expect(end.imported).toBe(3);
    expect(end.rejected).toEqual([
      {
        line: 4,
        cells: ['lead2@x.test'],
        error: 'Invalid request body: first_name: must not contain U+0000 (NUL)',
      },
    ]);
  });

  it('throws any other failure with the state of the last chunk that went through', async () => {
    const states: ImportState[] = [];
    let calls = 0;
    await expect(
      runImport(initialState(rows.length), {
        rows,
        toLead,
        chunkSize: 10,
        send: async (leads) => {
          if (++calls === 2) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Down');
          return accepted(leads);
        },
        stopRequested: () => false,
        onState: (s) => states.push(s),
        now,
      }),
    ).rejects.toMatchObject({ status: 503 });
    expect(states.at(-1)).toMatchObject({ next: 10, imported: 10 });
  });

  it('keeps a request under the body limit whatever the rows hold', async () => {
    const wide = Array.from({ length: 6 }, (_, i) => [`w${i}@x.test`, 'x'.repeat(1_000_000)]);
    const sizes: number[] = [];
    await runImport(initialState(wide.length), {
      rows: wide,
      toLead: (row) => ({ email: row[0], custom_fields: { notes: row[1] } }),
      chunkSize: 10_000,
      send: async (leads) => {
        sizes.push(JSON.stringify(leads).length);
        return accepted(leads);
      },
      stopRequested: () => false,
      onState: () => undefined,
      now,
    });
    expect(sizes).toHaveLength(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_REQUEST_CHARS);
  });
});

describe('the rejected rows file', () => {
  it('holds the file’s columns, then the line and the error, read back as written', () => {
    const csv = rejectedRowsCsv(
      ['Email', 'Notes'],
      [
        { line: 3, cells: ['bad', 'says "hi", twice'], error: 'Invalid email' },
        { line: 9, cells: [''], error: 'Email is required' },
      ],
    );
    expect(parse(csv)).toEqual([
      ['Email', 'Notes', 'Line in file', 'Import error'],
      ['bad', 'says "hi", twice', '3', 'Invalid email'],
      ['', '', '9', 'Email is required'],
    ]);
  });
});
