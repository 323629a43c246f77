import { createHash, randomUUID } from 'node:crypto';
import { withSystemScope, type Db } from '@crm/shared/db';
import type { RetentionSweep } from '@crm/shared/retention';
import { createTenant, createUser, isolatedTestDb, sweepPlans } from '@crm/test-kit';
import { sql } from 'kysely';
import { configSchema } from '../src/config';
import { service } from '../src/main';
import { gatewayRetention } from '../src/retention/retention-sweeps';

/*
 * The gateway's retention: sessions, OAuth authorization requests, codes and tokens are
 * removed once expired, rate-limit counters once their window has ended (the sweep that
 * replaced rate-limiter-flexible's timer per limiter); rows a minute from expiry stay. OAuth
 * clients nobody connected go 30 days after they were created. Each batch reads the table's
 * expiry (or creation) index.
 */
let database: Db;
const retention = gatewayRetention(configSchema.parse({}));
const sweepOf = (table: string) => retention.sweeps.find((s) => s.table === table)!;
const MINUTE = 60_000;
const hash = () => createHash('sha256').update(randomUUID()).digest('hex');

beforeAll(async () => {
  database = await isolatedTestDb();
});
afterAll(() => database.close());

/** One pass of `sweep` at `now`, as the worker runs it. */
function sweepNow(sweep: RetentionSweep, now = Date.now()): Promise<number> {
  return sweep.sweepBatch(database.db, new Date(now - sweep.keepMs), 1000);
}

async function keysOf(table: string, key: string): Promise<string[]> {
  const { rows } = await withSystemScope(database.db, (trx) =>
    sql<{ key: string }>`SELECT ${sql.ref(key)} AS key FROM ${sql.table(table)}`.execute(trx),
  );
  return rows.map((row) => row.key).sort();
}

it('deletes the sessions that have expired and keeps the live ones', async () => {
  const user = await createUser(database);
  const [expired, live] = [hash(), hash()];
  await withSystemScope(database.db, (trx) =>
    trx
      .insertInto('sessions')
      .values([
        { token_hash: expired, user_id: user.id, expires_at: new Date(Date.now() - MINUTE) },
        { token_hash: live, user_id: user.id, expires_at: new Date(Date.now() + MINUTE) },
      ])
      .execute(),
  );
  expect(await sweepNow(sweepOf('sessions'))).toBe(1);
  expect(await keysOf('sessions', 'token_hash')).toEqual([live]);
});

it('deletes OAuth requests, codes and tokens a day after expiry, used or not, and keeps the rest', async () => {
  const tenant = await createTenant(database);
  const clientId = `client-${randomUUID()}`;
  // Past the day a used code or refresh token is kept to recognise its replay.
  const past = new Date(Date.now() - 24 * 60 * MINUTE - MINUTE);
  const anHourAgo = new Date(Date.now() - 60 * MINUTE);
  const future = new Date(Date.now() + MINUTE);
  const challenge = 'a'.repeat(43);
  const hashes = {
    expiredCode: hash(),
    recentlyUsedCode: hash(),
    liveCode: hash(),
    expiredToken: hash(),
    liveToken: hash(),
  };
  const scopes = ['mcp:read:leads'];
  await withSystemScope(database.db, async (trx) => {
    await trx
      .insertInto('oauth_clients')
      .values({
        client_id: clientId,
        client_name: 'Agent',
        redirect_uris: ['https://a.example/cb'],
        source: 'registration',
      })
      .execute();
    const request = (id: string, expires_at: Date) => ({
      id,
      client_id: clientId,
      redirect_uri: 'https://a.example/cb',
      scopes: ['mcp:read:leads'],
      code_challenge: challenge,
      resource: 'http://localhost:8080/api/mcp',
      expires_at,
    });
    await trx
      .insertInto('oauth_authorization_requests')
      .values([request('expired-request', past), request('live-request', future)])
      .execute();
    const grant = await trx
      .insertInto('oauth_grants')
      .values({
        tenant_id: tenant.id,
        client_id: clientId,
        client_name: 'Agent',
        redirect_host: 'a.example',
        scopes: ['mcp:read:leads'],
        resource: 'http://localhost:8080/api/mcp',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const code = (code_hash: string, expires_at: Date, used_at: Date | null) => ({
      code_hash,
      grant_id: grant.id,
      redirect_uri: 'https://a.example/cb',
      code_challenge: challenge,
      expires_at,
      used_at,
    });
    await trx
      .insertInto('oauth_codes')
      .values([
        code(hashes.expiredCode, past, past),
        code(hashes.recentlyUsedCode, anHourAgo, anHourAgo),
        code(hashes.liveCode, future, null),
      ])
      .execute();
    await trx
      .insertInto('oauth_tokens')
      .values([
        {
          token_hash: hashes.expiredToken,
          grant_id: grant.id,
          kind: 'refresh',
          scopes,
          expires_at: past,
        },
        {
          token_hash: hashes.liveToken,
          grant_id: grant.id,
          kind: 'access',
          scopes,
          expires_at: future,
        },
      ])
      .execute();
  });
  for (const table of ['oauth_authorization_requests', 'oauth_codes', 'oauth_tokens']) {
    expect(await sweepNow(sweepOf(table))).toBe(1);
  }
  expect(await keysOf('oauth_authorization_requests', 'id')).toEqual(['live-request']);
  expect(await keysOf('oauth_codes', 'code_hash')).toEqual(
    [hashes.liveCode, hashes.recentlyUsedCode].sort(),
  );
  expect(await keysOf('oauth_tokens', 'token_hash')).toEqual([hashes.liveToken]);
  // The grant is the tenant's and not expiring: untouched.
  expect(await keysOf('oauth_grants', 'tenant_id')).toEqual([tenant.id]);
});

describe('OAuth clients nobody connected', () => {
  const DAY = 24 * 60 * MINUTE;
  const daysAgo = (days: number) => new Date(Date.now() - days * DAY);
  const challenge = 'a'.repeat(43);
  let tenantId: string;
  beforeAll(async () => {
    tenantId = (await createTenant(database)).id;
  });

  const addClient = (
    clientId: string,
    createdAt: Date,
    source: 'registration' | 'metadata_document' = 'registration',
  ) =>
    withSystemScope(database.db, (trx) =>
      trx
        .insertInto('oauth_clients')
        .values({
          client_id: clientId,
          client_name: 'Agent',
          redirect_uris: ['https://a.example/cb'],
          source,
          created_at: createdAt,
          fetched_at: createdAt,
        })
        .execute(),
    );
  const grantValues = (clientId: string, revoked: boolean) => ({
    tenant_id: tenantId,
    client_id: clientId,
    client_name: 'Agent',
    redirect_host: 'a.example',
    scopes: ['mcp:read:leads'],
    resource: 'http://localhost:8080/api/mcp',
    revoked_at: revoked ? new Date() : null,
  });
  const addRequest = (clientId: string, expiresAt: Date) =>
    withSystemScope(database.db, (trx) =>
      trx
        .insertInto('oauth_authorization_requests')
        .values({
          id: `request-${randomUUID()}`,
          client_id: clientId,
          redirect_uri: 'https://a.example/cb',
          scopes: ['mcp:read:leads'],
          code_challenge: challenge,
          resource: 'http://localhost:8080/api/mcp',
          expires_at: expiresAt,
        })
        .execute(),
    );
  const clientsAmong = async (ids: string[]) =>
    (await keysOf('oauth_clients', 'client_id')).filter((id) => ids.includes(id)).sort();

  it('deletes those created over 30 days ago without a grant or a pending request, registered or cached', async () => {
    const id = (what: string) => `${what}-${randomUUID()}`;
    const ids = {
      registered: id('registered'),
      document: `https://agent.example/${randomUUID()}`,
      expiredRequestOnly: id('expired-request'),
      granted: id('granted'),
      revokedGrant: id('revoked-grant'),
      pending: id('pending'),
      recent: id('recent'),
    };
    await addClient(ids.registered, daysAgo(31));
    await addClient(ids.document, daysAgo(31), 'metadata_document');
    await addClient(ids.expiredRequestOnly, daysAgo(31));
    await addClient(ids.granted, daysAgo(90));
    await addClient(ids.revokedGrant, daysAgo(90));
    await addClient(ids.pending, daysAgo(31));
    await addClient(ids.recent, daysAgo(29));
    await addRequest(ids.expiredRequestOnly, new Date(Date.now() - MINUTE));
    await addRequest(ids.pending, new Date(Date.now() + MINUTE));
    await withSystemScope(database.db, (trx) =>
      trx
        .insertInto('oauth_grants')
        .values([grantValues(ids.granted, false), grantValues(ids.revokedGrant, true)])
        .execute(),
    );
    const all = Object.values(ids);

    // Health's question: the oldest client the sweep would remove (the granted ones are older).
    const oldest = await sweepOf('oauth_clients').oldestBefore(database.db, daysAgo(30));
    expect(Math.abs(oldest!.getTime() - daysAgo(31).getTime())).toBeLessThan(MINUTE);
    expect(await sweepNow(sweepOf('oauth_clients'))).toBe(3);
    expect(await clientsAmong(all)).toEqual(
      [ids.granted, ids.revokedGrant, ids.pending, ids.recent].sort(),
    );
    // The grants, the tenant's records, are untouched; the expired request went with its client.
    expect(
      (await keysOf('oauth_grants', 'client_id')).filter((c) => all.includes(c)).sort(),
    ).toEqual([ids.granted, ids.revokedGrant].sort());
    expect(
      (await keysOf('oauth_authorization_requests', 'client_id')).filter((c) => all.includes(c)),
    ).toEqual([ids.pending]);
    expect(await sweepNow(sweepOf('oauth_clients'))).toBe(0);
    expect(await sweepOf('oauth_clients').oldestBefore(database.db, daysAgo(30))).toBeNull();
  });

  it('skips a client a grant is being written for, and keeps it once the grant commits', async () => {
    const clientId = `being-granted-${randomUUID()}`;
    await addClient(clientId, daysAgo(40));
    // The consent approval's transaction, still open: its grant refers to the client.
    const held = await database.pool.connect();
    try {
      await held.query('BEGIN');
      const grant = grantValues(clientId, false);
      await held.query(
        `INSERT INTO oauth_grants (tenant_id, client_id, client_name, redirect_host, scopes, resource)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          grant.tenant_id,
          clientId,
          grant.client_name,
          grant.redirect_host,
          grant.scopes,
          grant.resource,
        ],
      );
      expect(await sweepNow(sweepOf('oauth_clients'))).toBe(0);
      expect(await clientsAmong([clientId])).toEqual([clientId]);
      await held.query('COMMIT');
    } finally {
      held.release();
    }
    expect(await sweepNow(sweepOf('oauth_clients'))).toBe(0);
    expect(await clientsAmong([clientId])).toEqual([clientId]);
    expect((await keysOf('oauth_grants', 'client_id')).filter((c) => c === clientId)).toHaveLength(
      1,
    );
  });

  it('keeps a client for RETENTION_UNUSED_OAUTH_CLIENTS_DAYS when set', async () => {
    const longer = gatewayRetention(
      configSchema.parse({ RETENTION_UNUSED_OAUTH_CLIENTS_DAYS: '90' }),
    ).sweeps.find((sweep) => sweep.table === 'oauth_clients')!;
    expect(longer.keepMs).toBe(90 * DAY);
    const clientId = `kept-longer-${randomUUID()}`;
    await addClient(clientId, daysAgo(60));
    expect(await sweepNow(longer)).toBe(0);
    expect(await clientsAmong([clientId])).toEqual([clientId]);
    expect(() => configSchema.parse({ RETENTION_UNUSED_OAUTH_CLIENTS_DAYS: '0' })).toThrow();
  });
});

it('deletes the rate-limit counters whose window has ended, and keeps running windows', async () => {
  const now = Date.now();
  await sql`INSERT INTO rate_limits (key, points, expire) VALUES
    ('ended', 1, ${now - MINUTE}), ('running', 1, ${now + 30_000})`.execute(database.db);
  expect(await sweepNow(sweepOf('rate_limits'), now)).toBe(1);
  const { rows } = await sql<{ key: string }>`SELECT key FROM rate_limits`.execute(database.db);
  expect(rows.map((row) => row.key)).toEqual(['running']);
});

it('each batch and health question reads the head of the expiry index, without a sort', async () => {
  const indexes: Record<string, string> = {
    sessions: 'sessions_by_expiry',
    oauth_authorization_requests: 'oauth_authorization_requests_by_expiry',
    oauth_codes: 'oauth_codes_by_expiry',
    oauth_tokens: 'oauth_tokens_by_expiry',
    oauth_clients: 'oauth_clients_by_created',
    rate_limits: 'rate_limits_by_expiry',
  };
  expect(retention.sweeps.map((s) => s.table).sort()).toEqual(Object.keys(indexes).sort());
  for (const sweep of retention.sweeps) {
    const plans = await sweepPlans(database, async (db) => {
      await sweep.sweepBatch(db, new Date(0), 1000);
      await sweep.oldestBefore(db, new Date(0));
    });
    expect(plans).toHaveLength(2);
    for (const plan of plans) {
      expect(plan.indexes).toContain(indexes[sweep.table]);
      expect(plan.scans.filter((scan) => scan.startsWith('Seq Scan'))).toEqual([]);
      expect(plan.sorts).toBe(false);
    }
  }
});

it('the gateway runs its sweeps as its one retention worker', () => {
  const workers = service.workers?.({ db: database.db } as never, configSchema.parse({}));
  expect(workers?.map((w) => w.name)).toEqual(['retention']);
});
