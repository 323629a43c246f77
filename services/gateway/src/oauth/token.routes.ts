import type { Database } from '@crm/shared/db';
import { formBody } from '@crm/shared/http';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { OAuthError } from './oauth-errors';
import { oauthParams, parseScopes } from './oauth.schema';
import { exchangeCode, refreshTokens } from './token-grants';

/** Token and revocation requests are a handful of short parameters. */
export const OAUTH_FORM_LIMIT = 16 * 1024;

/**
 * `POST /token` (form-encoded; public clients, so no client authentication beyond client_id and
 * PKCE): the authorization_code and refresh_token grants. The answer is never cached.
 */
export function tokenRoutes(db: Kysely<Database>): Router {
  return Router().post('/token', formBody(OAUTH_FORM_LIMIT), async (req, res) => {
    const params = oauthParams(req.body);
    const grantType = params.required('grant_type');
    const clientId = params.required('client_id');
    const resource = params.optional('resource');
    let tokens;
    if (grantType === 'authorization_code') {
      tokens = await exchangeCode(db, {
        code: params.required('code'),
        clientId,
        redirectUri: params.required('redirect_uri'),
        codeVerifier: params.required('code_verifier'),
        resource,
      });
    } else if (grantType === 'refresh_token') {
      const scope = params.optional('scope');
      tokens = await refreshTokens(db, {
        refreshToken: params.required('refresh_token'),
        clientId,
        scopes: scope === undefined ? undefined : parseScopes(scope, []),
        resource,
      });
    } else {
      throw new OAuthError(
        'unsupported_grant_type',
        'grant_type is authorization_code or refresh_token',
      );
    }
    res.status(200).set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(tokens);
  });
}
