import { randomBytes } from 'node:crypto';
import { withSystemScope } from '@crm/shared/db';
import { captureLogger, createTenant, eventually, testDb } from '@crm/test-kit';
import {
  deleteExpiredOAuth,
  expiredOAuthRowsWorker,
  KEEP_EXPIRED_OAUTH_SECONDS,
} from '../src/oauth/expired-oauth-rows-worker';

/*
 * The sweep of the authorization server's short-lived rows: requests, codes and tokens expired
 * for over a day are deleted; live ones, recently expired ones and the grant itself stay.
 */
const database = testDb();
afterAll(() => database.close());

const hex = () => randomBytes(32).toString('hex');
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
const LONG_AGO = KEEP_EXPIRED_OAUTH_SECONDS + 3600;

async function seed() {
  const tenant = await createTenant(database, 'Sweep Co');
  const clientId = `sweep-${hex().slice(0, 12)}`;
  const hashes = { oldCode: hex(), recentCode: hex(), oldToken: hex(), liveToken: hex() };
  const requests = { old: hex(), live: hex() };
  const grantId = await withSystemScope(database.db, async (trx) => {
    await trx
      .insertInto('oauth_clients')
      .values({
        client_id: clientId,
        client_name: 'c',
        redirect_uris: ['https://a.example/cb'],
        source: 'registration',
      })
      .execute();
    const request = (id: string, expires: Date) => ({
      id,
      client_id: clientId,
      redirect_uri: 'https://a.example/cb',
      scopes: ['mcp:read:leads'],
      code_challenge: 'A'.repeat(43),
      resource: 'http://localhost:8080/api/mcp',
      expires_at: expires,
    });
    await trx
      .insertInto('oauth_authorization_requests')
      .values([request(requests.old, ago(LONG_AGO)), request(requests.live, ago(-600))])
      .execute();
    const grant = await trx
      .insertInto('oauth_grants')
      .values({
        tenant_id: tenant.id,
        client_id: clientId,
        client_name: 'c',
        redirect_host: 'a.example',
        scopes: ['mcp:read:leads'],
        resource: 'http://localhost:8080/api/mcp',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const code = (hash: string, expires: Date) => ({
      code_hash: hash,
      grant_id: grant.id,
      redirect_uri: 'https://a.example/cb',
      code_challenge: 'A'.repeat(43),
      expires_at: expires,
    });
    await trx
      .insertInto('oauth_codes')
      .values([code(hashes.oldCode, ago(LONG_AGO)), code(hashes.recentCode, ago(60))])
      .execute();
    await trx
      .insertInto('oauth_tokens')
      .values([
        {
          token_hash: hashes.oldToken,
          grant_id: grant.id,
          kind: 'refresh',
          expires_at: ago(LONG_AGO),
        },
        {
          token_hash: hashes.liveToken,
          grant_id: grant.id,
          kind: 'access',
          expires_at: ago(-3600),
        },
      ])
      .execute();
    return grant.id;
  });
  return { grantId, hashes, requests };
}

async function left(grantId: string) {
  return withSystemScope(database.db, async (trx) => ({
    codes: (
      await trx
        .selectFrom('oauth_codes')
        .select('code_hash')
        .where('grant_id', '=', grantId)
        .execute()
    ).map((r) => r.code_hash),
    tokens: (
      await trx
        .selectFrom('oauth_tokens')
        .select('token_hash')
        .where('grant_id', '=', grantId)
        .execute()
    ).map((r) => r.token_hash),
    grants: (await trx.selectFrom('oauth_grants').select('id').where('id', '=', grantId).execute())
      .length,
  }));
}

const requestsLeft = (ids: string[]) =>
  withSystemScope(database.db, (trx) =>
    trx.selectFrom('oauth_authorization_requests').select('id').where('id', 'in', ids).execute(),
  );

it('deletes requests, codes and tokens expired over a day ago, and only those', async () => {
  const { grantId, hashes, requests } = await seed();
  expect(await deleteExpiredOAuth({ db: database.db })).toBeGreaterThanOrEqual(3);
  expect(await left(grantId)).toEqual({
    codes: [hashes.recentCode],
    tokens: [hashes.liveToken],
    grants: 1,
  });
  expect(await requestsLeft([requests.old, requests.live])).toEqual([{ id: requests.live }]);
});

it('runs as a worker: at start, until stopped', async () => {
  const { grantId, hashes } = await seed();
  const { logger } = captureLogger();
  const worker = expiredOAuthRowsWorker({ db: database.db, logger }, 60_000);
  await worker.start();
  await eventually(async () => expect((await left(grantId)).tokens).toEqual([hashes.liveToken]));
  await worker.stop();
});
