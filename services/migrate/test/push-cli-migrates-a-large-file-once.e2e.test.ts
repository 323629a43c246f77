import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Db } from '@crm/shared/db';
import { createTenant, tenantRowCounts, testDb, useServiceBehindGateway } from '@crm/test-kit';
import { sql } from 'kysely';
import { service } from '../src/main';

const SECRET = 'migrate-push-test-secret';
const ROOT = join(__dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'services', 'migrate', 'src', 'push', 'migrate-push.ts');
const RECORDS = 20_000;

const stack = useServiceBehindGateway(service, {
  SVC_MIGRATE_SIGNING_SECRET: SECRET,
  MIGRATE_MAX_RECORDS: '5000',
});
let db: Db;
let dir: string;
beforeAll(() => {
  db = testDb();
  dir = mkdtempSync(join(tmpdir(), 'migrate-push-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db.close();
});

function push(file: string, tenant: string, secret = SECRET) {
  return promisify(execFile)(
    TSX,
    [
      CLI,
      '--file',
      file,
      '--entity',
      'leads',
      '--tenant',
      tenant,
      '--source',
      'hubspot',
      '--url',
      stack.url,
      '--chunk',
      '5000',
    ],
    { env: { PATH: process.env.PATH ?? '', SVC_MIGRATE_SIGNING_SECRET: secret }, cwd: ROOT },
  );
}

async function leadCount(tenantId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM crm_leads WHERE tenant_id = ${tenantId}`.execute(db.db);
  return Number(rows[0].n);
}

describe('npm run migrate:push', () => {
  it('pushes a 20,000-record file in signed chunks; a second push updates and creates nothing', async () => {
    const tenant = await createTenant(db);
    const file = join(dir, 'export.ndjson');
    const lines = Array.from({ length: RECORDS }, (_, i) =>
      JSON.stringify(
        i === 7
          ? { external_id: `h-${i}`, first_name: 'No email' }
          : { external_id: `h-${i}`, email: `lead-${i}@example.com`, first_name: `Lead ${i}` },
      ),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);

    const first = await push(file, tenant.slug);
    expect(first.stdout).toContain(`${RECORDS} records in`);
    expect(first.stdout).toContain(`${RECORDS - 1} created, 0 updated, 1 failed`);
    expect(await leadCount(tenant.id)).toBe(RECORDS - 1);
    const failed = readFileSync(`${file}.failed.ndjson`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(failed).toEqual([
      {
        index: 7,
        error: 'Email is required',
        record: { external_id: 'h-7', first_name: 'No email' },
      },
    ]);
    // Not a TTY here: plain progress lines, one per chunk of 5,000.
    expect(first.stderr.trim().split('\n')).toHaveLength(4);

    const second = await push(file, tenant.slug);
    expect(second.stdout).toContain(`0 created, ${RECORDS - 1} updated, 1 failed`);
    expect(await leadCount(tenant.id)).toBe(RECORDS - 1);
  });

  it('stops with a clear message on bad_signature and writes nothing', async () => {
    const tenant = await createTenant(db);
    const file = join(dir, 'small.ndjson');
    writeFileSync(file, `${JSON.stringify({ external_id: 'a', email: 'a@example.com' })}\n`);
    const before = await tenantRowCounts(db, tenant.id);
    await expect(push(file, tenant.slug, 'not-the-secret')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        'migrate:push stopped: the server refused the signature (bad_signature)',
      ),
    });
    expect(await tenantRowCounts(db, tenant.id)).toEqual(before);
  });
});
