import type { Trx } from '@crm/shared/db';
import { sql } from 'kysely';

/*
 * Every SQL statement of the authorization server. Clients, authorization requests, codes and
 * tokens belong to no tenant (they are resolved before one is known) and are read in the system
 * scope; a grant is the tenant's own row, written as that tenant (asTenant) and found again
 * through its code or token. Lifetimes are counted by the database clock, in seconds.
 */

const inSeconds = (seconds: number) => sql<Date>`now() + make_interval(secs => ${seconds})`;

// Clients

export interface ClientRow {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  source: 'registration' | 'metadata_document';
  fetched_at: Date;
}

export function findClientById(trx: Trx, clientId: string): Promise<ClientRow | undefined> {
  return trx
    .selectFrom('oauth_clients')
    .select(['client_id', 'client_name', 'redirect_uris', 'source', 'fetched_at'])
    .where('client_id', '=', clientId)
    .executeTakeFirst();
}

export interface NewClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  metadata: Record<string, unknown>;
}

export async function insertRegisteredClient(trx: Trx, client: NewClient): Promise<Date> {
  const row = await trx
    .insertInto('oauth_clients')
    .values({
      client_id: client.clientId,
      client_name: client.clientName,
      redirect_uris: client.redirectUris,
      source: 'registration',
      metadata: JSON.stringify(client.metadata),
    })
    .returning('created_at')
    .executeTakeFirstOrThrow();
  return row.created_at;
}

/** Stores (or refreshes) the cached copy of a Client ID Metadata Document. */
export async function upsertMetadataDocumentClient(trx: Trx, client: NewClient): Promise<void> {
  await trx
    .insertInto('oauth_clients')
    .values({
      client_id: client.clientId,
      client_name: client.clientName,
      redirect_uris: client.redirectUris,
      source: 'metadata_document',
      metadata: JSON.stringify(client.metadata),
    })
    .onConflict((oc) =>
      oc
        .column('client_id')
        .doUpdateSet({
          client_name: client.clientName,
          redirect_uris: client.redirectUris,
          metadata: JSON.stringify(client.metadata),
          fetched_at: sql<Date>`now()`,
        })
        .where('oauth_clients.source', '=', 'metadata_document'),
    )
    .execute();
}

// Authorization requests (waiting for the user's consent)

export interface NewAuthorizationRequest {
  id: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string;
  resource: string;
  ttlSeconds: number;
}

export async function insertAuthorizationRequest(
  trx: Trx,
  request: NewAuthorizationRequest,
): Promise<void> {
  await trx
    .insertInto('oauth_authorization_requests')
    .values({
      id: request.id,
      client_id: request.clientId,
      redirect_uri: request.redirectUri,
      scopes: request.scopes,
      state: request.state,
      code_challenge: request.codeChallenge,
      resource: request.resource,
      expires_at: inSeconds(request.ttlSeconds),
    })
    .execute();
}

/** An unexpired request with its client's name; locked for the decision when `forUpdate`. */
export function findLiveAuthorizationRequest(trx: Trx, id: string, forUpdate = false) {
  const query = trx
    .selectFrom('oauth_authorization_requests as r')
    .innerJoin('oauth_clients as c', 'c.client_id', 'r.client_id')
    .select([
      'r.id',
      'r.client_id',
      'c.client_name',
      'r.redirect_uri',
      'r.scopes',
      'r.state',
      'r.code_challenge',
      'r.resource',
      'r.expires_at',
    ])
    .where('r.id', '=', id)
    .where('r.expires_at', '>', sql<Date>`now()`);
  return (forUpdate ? query.forUpdate('r') : query).executeTakeFirst();
}

export async function deleteAuthorizationRequest(trx: Trx, id: string): Promise<void> {
  await trx.deleteFrom('oauth_authorization_requests').where('id', '=', id).execute();
}

// Grants, codes and tokens

export interface NewGrant {
  tenantId: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
  userId: string;
  scopes: string[];
  resource: string;
}

/** Runs as the tenant (row-level security checks the tenant_id written). */
export async function insertGrant(trx: Trx, grant: NewGrant): Promise<string> {
  const row = await trx
    .insertInto('oauth_grants')
    .values({
      tenant_id: grant.tenantId,
      client_id: grant.clientId,
      client_name: grant.clientName,
      redirect_host: grant.redirectHost,
      user_id: grant.userId,
      scopes: grant.scopes,
      resource: grant.resource,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface NewCode {
  codeHash: string;
  grantId: string;
  redirectUri: string;
  codeChallenge: string;
  ttlSeconds: number;
}

export async function insertCode(trx: Trx, code: NewCode): Promise<void> {
  await trx
    .insertInto('oauth_codes')
    .values({
      code_hash: code.codeHash,
      grant_id: code.grantId,
      redirect_uri: code.redirectUri,
      code_challenge: code.codeChallenge,
      expires_at: inSeconds(code.ttlSeconds),
    })
    .execute();
}

/** What a code or token's grant says about it, read with the code or token. */
const GRANT_COLUMNS = [
  'g.id as grantId',
  'g.tenant_id as tenantId',
  'g.client_id as clientId',
  'g.scopes',
  'g.resource',
  'g.revoked_at as revokedAt',
] as const;

/*
 * Lock order. Every transaction that changes a grant's codes or tokens (an exchange, a rotation,
 * a revocation, reuse detection revoking the whole grant) first locks the grant row, then the
 * code or token it was handed, then (revoking) the grant's other tokens. One order for all, so
 * two such transactions queue on the grant instead of each holding a row the other waits for (a
 * deadlock, which Postgres ends by failing one of them). The grant a code or token belongs to
 * never changes, so it is read unlocked first.
 */

/**
 * Locks the grant of the code or token with this hash until the transaction ends (see the lock
 * order above), in one statement that reads the grant's id unlocked; false when there is none.
 */
async function lockGrantOf(
  trx: Trx,
  of: { table: 'oauth_codes' | 'oauth_tokens'; hash: string },
): Promise<boolean> {
  const grantId =
    of.table === 'oauth_codes'
      ? trx.selectFrom('oauth_codes').select('grant_id').where('code_hash', '=', of.hash)
      : trx.selectFrom('oauth_tokens').select('grant_id').where('token_hash', '=', of.hash);
  const grant = await trx
    .selectFrom('oauth_grants')
    .select('id')
    .where('id', '=', grantId)
    .forUpdate()
    .executeTakeFirst();
  return grant !== undefined;
}

/**
 * A code by its hash with its grant, the grant then the code locked until the exchange commits
 * (single use: a second exchange of it waits, then finds it used).
 */
export async function lockCodeWithGrant(trx: Trx, codeHash: string) {
  if (!(await lockGrantOf(trx, { table: 'oauth_codes', hash: codeHash }))) return undefined;
  return trx
    .selectFrom('oauth_codes as c')
    .innerJoin('oauth_grants as g', 'g.id', 'c.grant_id')
    .select([
      ...GRANT_COLUMNS,
      'c.redirect_uri as redirectUri',
      'c.code_challenge as codeChallenge',
      'c.used_at as usedAt',
      sql<boolean>`c.expires_at <= now()`.as('expired'),
    ])
    .where('c.code_hash', '=', codeHash)
    .forUpdate('c')
    .executeTakeFirst();
}

export async function markCodeUsed(trx: Trx, codeHash: string): Promise<void> {
  await trx
    .updateTable('oauth_codes')
    .set({ used_at: sql<Date>`now()` })
    .where('code_hash', '=', codeHash)
    .execute();
}

/**
 * A token by its hash with its grant, the grant then the token locked until the transaction ends
 * (a refresh token's rotation, a revocation).
 */
export async function lockTokenWithGrant(trx: Trx, tokenHash: string) {
  if (!(await lockGrantOf(trx, { table: 'oauth_tokens', hash: tokenHash }))) return undefined;
  return trx
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .select([
      ...GRANT_COLUMNS,
      't.kind',
      't.scopes as tokenScopes',
      't.used_at as usedAt',
      sql<boolean>`t.expires_at <= now()`.as('expired'),
    ])
    .where('t.token_hash', '=', tokenHash)
    .forUpdate('t')
    .executeTakeFirst();
}

export async function markTokenUsed(trx: Trx, tokenHash: string): Promise<void> {
  await trx
    .updateTable('oauth_tokens')
    .set({ used_at: sql<Date>`now()` })
    .where('token_hash', '=', tokenHash)
    .execute();
}

export async function deleteToken(trx: Trx, tokenHash: string): Promise<void> {
  await trx.deleteFrom('oauth_tokens').where('token_hash', '=', tokenHash).execute();
}

export interface NewToken {
  hash: string;
  kind: 'access' | 'refresh';
  /** What it allows: a refresh token, the grant's scopes; an access token, those asked for. */
  scopes: string[];
  ttlSeconds: number;
}

export async function insertTokens(trx: Trx, grantId: string, tokens: NewToken[]): Promise<void> {
  await trx
    .insertInto('oauth_tokens')
    .values(
      tokens.map((token) => ({
        token_hash: token.hash,
        grant_id: grantId,
        kind: token.kind,
        scopes: token.scopes,
        expires_at: inSeconds(token.ttlSeconds),
      })),
    )
    .execute();
}

/**
 * Revokes a grant: revoked_at set (kept if it already was) and every token of it deleted, so
 * none works a moment longer; its codes can no longer be exchanged (the grant is revoked). The
 * grant is updated first, which locks it before its tokens (the lock order above).
 */
export async function revokeGrant(trx: Trx, grantId: string): Promise<void> {
  await trx
    .updateTable('oauth_grants')
    .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
    .where('id', '=', grantId)
    .execute();
  await trx.deleteFrom('oauth_tokens').where('grant_id', '=', grantId).execute();
}
