import { withSystemScope, type Database, type Trx } from '@crm/shared/db';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  hashOAuthSecret,
  looksLikeOAuthSecret,
  newOAuthSecret,
} from '@crm/shared/mcp-access';
import type { Kysely } from 'kysely';
import { OAuthError } from './oauth-errors';
import {
  deleteToken,
  lockCodeWithGrant,
  lockTokenWithGrant,
  insertTokens,
  markCodeUsed,
  markTokenUsed,
  revokeGrant,
} from './oauth.repository';
import { verifierMatches } from './pkce';

/*
 * The token endpoint's two grants. Each runs in one transaction holding the grant, then the code
 * or refresh token row, locked (the repository's lock order), so two requests presenting the same
 * one, or two codes or tokens of one grant, are served one after the other: the second sees it
 * used. A used code or refresh token presented again means it leaked (or the
 * client is broken): the whole grant is revoked and its tokens deleted (OAuth 2.1 §4.1.3, §4.3.1).
 * A refusal that revokes must commit, so refusals are returned out of the transaction and thrown
 * after it. Issuing tokens does not touch the grant's last_used_at: that is the last MCP request,
 * which mcp-ingest records.
 */

export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Outcome = { tokens: TokenResponse } | { refused: OAuthError };

const refused = (error: OAuthError['error'], description: string): Outcome => ({
  refused: new OAuthError(error, description),
});

async function settle(work: Promise<Outcome>): Promise<TokenResponse> {
  const outcome = await work;
  if ('refused' in outcome) throw outcome.refused;
  return outcome.tokens;
}

/** What a new pair allows: the access token `access`, the refresh token `refresh` (wider or equal). */
interface PairScopes {
  access: string[];
  refresh: string[];
}

/** A new access and refresh token for the grant; only their hashes are stored. */
async function issueTokens(trx: Trx, grantId: string, scopes: PairScopes): Promise<TokenResponse> {
  const access = newOAuthSecret('access');
  const refresh = newOAuthSecret('refresh');
  await insertTokens(trx, grantId, [
    {
      hash: access.hash,
      kind: 'access',
      scopes: scopes.access,
      ttlSeconds: ACCESS_TOKEN_TTL_SECONDS,
    },
    {
      hash: refresh.hash,
      kind: 'refresh',
      scopes: scopes.refresh,
      ttlSeconds: REFRESH_TOKEN_TTL_SECONDS,
    },
  ]);
  return {
    access_token: access.secret,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refresh.secret,
    scope: scopes.access.join(' '),
  };
}

export interface CodeExchange {
  code: string;
  clientId: string;
  redirectUri: string;
  codeVerifier: string;
  resource?: string;
}

/** grant_type=authorization_code: a code (once), its client, redirect URI and PKCE verifier. */
export function exchangeCode(db: Kysely<Database>, input: CodeExchange): Promise<TokenResponse> {
  if (!looksLikeOAuthSecret('code', input.code))
    return Promise.reject(new OAuthError('invalid_grant', 'Unknown authorization code'));
  const codeHash = hashOAuthSecret(input.code);
  return settle(
    withSystemScope(db, async (trx): Promise<Outcome> => {
      const code = await lockCodeWithGrant(trx, codeHash);
      if (!code) return refused('invalid_grant', 'Unknown authorization code');
      if (code.usedAt) {
        await revokeGrant(trx, code.grantId);
        return refused('invalid_grant', 'The code was already used; its grant is revoked');
      }
      if (code.expired) return refused('invalid_grant', 'The code has expired');
      if (code.revokedAt) return refused('invalid_grant', 'The grant was revoked');
      if (code.clientId !== input.clientId)
        return refused('invalid_grant', 'The code was issued to another client');
      if (code.redirectUri !== input.redirectUri)
        return refused('invalid_grant', 'redirect_uri is not the one of the authorize request');
      if (input.resource !== undefined && input.resource !== code.resource)
        return refused('invalid_target', `The code is for ${code.resource}`);
      if (!verifierMatches(input.codeVerifier, code.codeChallenge))
        return refused('invalid_grant', 'code_verifier does not match the code_challenge');
      await markCodeUsed(trx, codeHash);
      return {
        tokens: await issueTokens(trx, code.grantId, { access: code.scopes, refresh: code.scopes }),
      };
    }),
  );
}

export interface RefreshExchange {
  refreshToken: string;
  clientId: string;
  /** Narrower scopes asked for (already checked to be MCP scopes), or undefined. */
  scopes?: string[];
  resource?: string;
}

/**
 * grant_type=refresh_token: rotates (the presented token is used up, a new pair issued). Asking
 * for fewer scopes narrows the new access token only (OAuth 2.1 §4.3.3, RFC 6749 §6): the new
 * refresh token keeps the presented one's scopes, and the grant is left as the user approved it,
 * so a later refresh without `scope` gets every scope back. Wider than the presented refresh
 * token is invalid_scope.
 */
export function refreshTokens(
  db: Kysely<Database>,
  input: RefreshExchange,
): Promise<TokenResponse> {
  if (!looksLikeOAuthSecret('refresh', input.refreshToken))
    return Promise.reject(new OAuthError('invalid_grant', 'Unknown refresh token'));
  const tokenHash = hashOAuthSecret(input.refreshToken);
  return settle(
    withSystemScope(db, async (trx): Promise<Outcome> => {
      const token = await lockTokenWithGrant(trx, tokenHash);
      if (!token || token.kind !== 'refresh')
        return refused('invalid_grant', 'Unknown refresh token');
      if (token.usedAt) {
        await revokeGrant(trx, token.grantId);
        return refused('invalid_grant', 'The refresh token was already used; its grant is revoked');
      }
      if (token.expired) return refused('invalid_grant', 'The refresh token has expired');
      if (token.revokedAt) return refused('invalid_grant', 'The grant was revoked');
      if (token.clientId !== input.clientId)
        return refused('invalid_grant', 'The refresh token was issued to another client');
      if (input.resource !== undefined && input.resource !== token.resource)
        return refused('invalid_target', `The grant is for ${token.resource}`);
      const wider = (input.scopes ?? []).find((scope) => !token.tokenScopes.includes(scope));
      if (wider) return refused('invalid_scope', `The refresh token does not include ${wider}`);
      await markTokenUsed(trx, tokenHash);
      const scopes = { access: input.scopes ?? token.tokenScopes, refresh: token.tokenScopes };
      return { tokens: await issueTokens(trx, token.grantId, scopes) };
    }),
  );
}

/**
 * RFC 7009: an access token is deleted (it stops working at once); a refresh token revokes its
 * whole grant. Unknown tokens, and tokens of another client than a given client_id, are left
 * alone: the answer is the same either way, so it tells nothing about a token.
 */
export async function revokeToken(
  db: Kysely<Database>,
  token: string,
  clientId: string | undefined,
): Promise<void> {
  if (!looksLikeOAuthSecret('access', token) && !looksLikeOAuthSecret('refresh', token)) return;
  const tokenHash = hashOAuthSecret(token);
  await withSystemScope(db, async (trx) => {
    const found = await lockTokenWithGrant(trx, tokenHash);
    if (!found || (clientId !== undefined && clientId !== found.clientId)) return;
    if (found.kind === 'access') await deleteToken(trx, tokenHash);
    else await revokeGrant(trx, found.grantId);
  });
}
