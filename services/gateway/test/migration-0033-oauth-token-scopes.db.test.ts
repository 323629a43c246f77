import { randomUUID } from 'node:crypto';
import { createDb, dropDatabase, ensureDatabase, withDatabase, type Db } from '@crm/shared/db';
import { migrations } from '@crm/shared/db/migrations';
import { Migrator, sql } from 'kysely';

/**
 * Migration 0033 on a database that already holds OAuth tokens: each token takes its grant's
 * scopes (what it allowed until then), and afterwards a token without scopes, or with one that
 * is not an MCP scope, is refused.
 */
const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
const name = `crm_mig0033_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
let database: Db;
let migrator: Migrator;

beforeAll(async () => {
  if (!adminUrl) throw new Error('run tests through `npm test` (jest global setup)');
  await ensureDatabase(adminUrl, name);
  database = createDb({ connectionString: withDatabase(adminUrl, name), maxConnections: 2 });
  migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo('0032_contact_search_text');
  if (error) throw error;
});

afterAll(async () => {
  await database?.close();
  if (adminUrl) await dropDatabase(adminUrl, name);
});

const hash = () => randomUUID().replace(/-/g, '').padEnd(64, '0');

it("backfills each token's scopes from its grant, then requires MCP scopes", async () => {
  const db = database.db;
  const tenantId = (
    await sql<{ id: string }>`INSERT INTO tenants (slug, name)
      VALUES (${`t-${randomUUID().slice(0, 12)}`}, 'Migration') RETURNING id`.execute(db)
  ).rows[0].id;
  await sql`INSERT INTO oauth_clients (client_id, client_name, redirect_uris, source)
    VALUES ('c-1', 'Agent', ARRAY['https://a.example/cb'], 'registration')`.execute(db);
  const grant = async (scopes: string[]) =>
    (
      await sql<{ id: string }>`INSERT INTO oauth_grants
        (tenant_id, client_id, client_name, redirect_host, scopes, resource)
        VALUES (${tenantId}, 'c-1', 'Agent', 'a.example', ${scopes}, 'http://x/api/mcp')
        RETURNING id`.execute(db)
    ).rows[0].id;
  const wide = await grant(['mcp:ingest:leads', 'mcp:read:leads']);
  const narrow = await grant(['mcp:read:deals']);
  const tokens = { wideAccess: hash(), wideRefresh: hash(), narrowAccess: hash() };
  await sql`INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at) VALUES
    (${tokens.wideAccess}, ${wide}, 'access', now() + interval '1 hour'),
    (${tokens.wideRefresh}, ${wide}, 'refresh', now() + interval '1 day'),
    (${tokens.narrowAccess}, ${narrow}, 'access', now() + interval '1 hour')`.execute(db);

  const { error } = await migrator.migrateTo('0033_oauth_token_scopes_and_client_sweep');
  expect(error).toBeUndefined();

  const { rows } = await sql<{ token_hash: string; scopes: string[] }>`
    SELECT token_hash, scopes FROM oauth_tokens`.execute(db);
  const scopesOf = Object.fromEntries(rows.map((row) => [row.token_hash, row.scopes]));
  expect(scopesOf).toEqual({
    [tokens.wideAccess]: ['mcp:ingest:leads', 'mcp:read:leads'],
    [tokens.wideRefresh]: ['mcp:ingest:leads', 'mcp:read:leads'],
    [tokens.narrowAccess]: ['mcp:read:deals'],
  });

  const insert = (scopes: string[] | null) =>
    sql`INSERT INTO oauth_tokens (token_hash, grant_id, kind, scopes, expires_at)
      VALUES (${hash()}, ${wide}, 'access', ${scopes}, now())`.execute(db);
  await expect(insert(null)).rejects.toThrow(/null value in column "scopes"/);
  await expect(insert([])).rejects.toThrow(/oauth_tokens_scopes_check/);
  await expect(insert(['admin'])).rejects.toThrow(/oauth_tokens_scopes_check/);
  await expect(insert(['mcp:read:leads'])).resolves.toBeDefined();
});
