import { withTenant } from '@crm/shared/db';
import { eventually } from '@crm/test-kit';
import { sql } from 'kysely';
import {
  exportFile,
  startPausedExport,
  useExportStack,
  type ExportStack,
  type StreamedResponse,
} from './support/exports-harness';

/**
 * An export streams from a cursor at the pace the client reads: a client that stops reading
 * keeps the export (and its cursor) waiting instead of the file piling up in memory; a client
 * that leaves frees it; a failure after the first byte breaks the download off rather than
 * ending it as if it were complete. One export at a time here (EXPORT_MAX_CONCURRENT=1).
 */
const stack: ExportStack = useExportStack({ EXPORT_MAX_CONCURRENT: '1' });
/**
 * Far more file (~90 MB of CSV, ~45 MB of XLSX: the notes are hex, which deflate cannot
 * shrink much) than every socket and stream buffer between crm-api and the client holds.
 */
const BULK_LEADS = 40_000;
let bulk: Awaited<ReturnType<ExportStack['tenant']>>;
let small: Awaited<ReturnType<ExportStack['tenant']>>;

beforeAll(async () => {
  bulk = await stack.tenant('Bulk Leads');
  small = await stack.tenant('Small Leads');
  await withTenant(stack.database.db, bulk.id, (trx) =>
    sql`INSERT INTO crm_leads (tenant_id, email, custom_fields)
        SELECT ${bulk.id}::uuid, 'bulk-' || g || '@bulk.test',
               jsonb_build_object('notes', (SELECT string_agg(md5(g || '-' || i), '')
                                            FROM generate_series(1, 64) AS i))
        FROM generate_series(1, ${BULK_LEADS}) AS g`.execute(trx),
  );
  await withTenant(stack.database.db, small.id, (trx) =>
    trx
      .insertInto('crm_leads')
      .values({ tenant_id: small.id, email: 'only@small.test', custom_fields: '{}' })
      .execute(),
  );
}, 60_000);

const smallExport = () =>
  exportFile(stack, small.cookie, { resource: 'leads', format: 'csv', columns: ['email'] });

const started: StreamedResponse[] = [];
async function startHeldExport(format: string): Promise<StreamedResponse> {
  const held = await startPausedExport(stack, bulk.cookie, { resource: 'leads', format });
  started.push(held);
  return held;
}

// A test that fails half-way must not leave its export holding the only slot for the next.
afterEach(async () => {
  for (const held of started.splice(0)) held.destroy();
  await eventually(async () => expect(await stack.crmBackendsFetching()).toEqual([]));
});

function logged(message: string) {
  return stack.crmLogs.lines().filter((line) => line.msg === message);
}

it.each(['csv', 'xlsx'])(
  '%s: a paused download holds its cursor open; meanwhile another export gets 503; leaving frees both',
  async (format) => {
    const wentAway = logged('export stopped: the client went away').length;
    const held = await startHeldExport(format);
    expect(held.res.statusCode).toBe(200);
    expect(held.res.headers['content-disposition']).toContain(`.${format}"`);
    // crm-api waits on the client with the transaction (and its cursor) open.
    const fetching = await eventually(async () => {
      const pids = await stack.crmBackendsFetching();
      expect(pids).toHaveLength(1);
      return pids;
    });

    const busy = await smallExport();
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('5');
    expect(busy.json).toEqual({
      success: false,
      error: 'Service unavailable',
      code: 'SERVICE_UNAVAILABLE',
      message: 'Too many exports are running; try again in 5 seconds',
      details: { retryAfter: 5 },
    });
    // Still open: the 503 was not a race with a finishing export.
    expect(await stack.crmBackendsFetching()).toEqual(fetching);

    held.destroy();
    await eventually(async () => expect(await stack.crmBackendsFetching()).toEqual([]));
    await eventually(async () => expect((await smallExport()).status).toBe(200));
    expect(logged('export stopped: the client went away')).toHaveLength(wentAway + 1);
  },
);

it('a database failure after the first byte breaks the download off through the gateway, never a clean end', async () => {
  const held = await startHeldExport('csv');
  expect(held.res.statusCode).toBe(200);
  const [pid] = await eventually(async () => {
    const pids = await stack.crmBackendsFetching();
    expect(pids).toHaveLength(1);
    return pids;
  });
  // A cut database connection is logged as unavailable (503), not as a bug (500): either way one
  // failure line, and the client sees the download aborted rather than a clean end.
  const failed = () => logged('request failed').filter((line) => Number(line.status) >= 500).length;
  const failuresBefore = failed();
  await sql`SELECT pg_terminate_backend(${pid}::int)`.execute(stack.database.db);

  held.res.resume();
  expect(await held.outcome).toBe('aborted');

  // The failure was logged as one, and the slot is free for the next export.
  await eventually(() => expect(failed()).toBe(failuresBefore + 1));
  await eventually(async () => {
    const res = await smallExport();
    expect(res.status).toBe(200);
    expect(res.bytes.toString('utf8')).toContain('only@small.test');
  });
});
