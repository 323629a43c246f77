import { randomToken } from '@crm/shared/crypto';
import { withSystemScope, type Database } from '@crm/shared/db';
import { MCP_SCOPES } from '@crm/shared/mcp-access';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { DocumentFetcher } from './client-metadata-document';
import { resolveClient } from './oauth-clients';
import { OAuthError } from './oauth-errors';
import { insertAuthorizationRequest } from './oauth.repository';
import { oauthParams, parseScopes } from './oauth.schema';
import { CODE_CHALLENGE } from './pkce';
import { redirectUriRegistered, redirectWith } from './redirect-uri';

/** How long the user has to answer on the consent page. */
export const AUTHORIZATION_REQUEST_TTL_SECONDS = 10 * 60;
/** The console page that asks the user (services/console). */
export const CONSENT_PAGE = '/oauth/consent';

export interface AuthorizeOptions {
  db: Kysely<Database>;
  issuer: string;
  /** The MCP server's URL: the only resource tokens are issued for. */
  resource: string;
  fetchDocument: DocumentFetcher;
}

/**
 * `GET /authorize` (OAuth 2.1 authorization code with PKCE S256). An unknown client or a
 * redirect_uri the client did not register (exactly, but for a loopback URI's port: see
 * redirectUriRegistered) is answered 400 here, never redirected (the redirect would go to an
 * address nobody vouched for). Every other refusal goes back to the client's redirect_uri with
 * `error`, `error_description`, `state` and `iss` (RFC 9207). An acceptable request is stored for
 * ten minutes and the browser sent to the console's consent page.
 */
export function authorizeRoutes(options: AuthorizeOptions): Router {
  const { db, issuer, resource } = options;
  return Router().get('/authorize', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const params = oauthParams(req.query);
    const clientId = params.required('client_id');
    const redirectUri = params.required('redirect_uri');
    const client = await resolveClient(db, options.fetchDocument, clientId);
    if (!client) throw new OAuthError('invalid_client', 'Unknown client_id');
    if (!redirectUriRegistered(client.redirectUris, redirectUri))
      throw new OAuthError('invalid_request', 'redirect_uri is not one the client registered');

    let state: string | undefined;
    try {
      state = params.optional('state');
      if (params.required('response_type') !== 'code')
        throw new OAuthError('unsupported_response_type', 'response_type must be "code"');
      const codeChallenge = params.optional('code_challenge');
      const method = params.optional('code_challenge_method');
      if (codeChallenge === undefined || method === undefined)
        throw new OAuthError('invalid_request', 'PKCE is required: code_challenge with S256');
      if (method !== 'S256')
        throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
      if (!CODE_CHALLENGE.test(codeChallenge))
        throw new OAuthError(
          'invalid_request',
          'code_challenge is BASE64URL(SHA-256): 43 characters',
        );
      const scopes = parseScopes(params.optional('scope'), MCP_SCOPES);
      const askedResource = params.optional('resource');
      if (askedResource !== undefined && askedResource !== resource)
        throw new OAuthError('invalid_target', `The only resource here is ${resource}`);
      const id = randomToken(32);
      await withSystemScope(db, (trx) =>
        insertAuthorizationRequest(trx, {
          id,
          clientId: client.clientId,
          redirectUri,
          scopes,
          state: state ?? null,
          codeChallenge,
          resource,
          ttlSeconds: AUTHORIZATION_REQUEST_TTL_SECONDS,
        }),
      );
      res.redirect(302, `${CONSENT_PAGE}?request=${id}`);
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      res.redirect(
        302,
        redirectWith(redirectUri, {
          error: err.error,
          error_description: err.description,
          state,
          iss: issuer,
        }),
      );
    }
  });
}
