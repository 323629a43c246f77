import type { Database } from '@crm/shared/db';
import { mcpResourceUrl } from '@crm/shared/mcp-access';
import { matchesPrefix } from '@crm/shared/routes';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { authorizeRoutes } from './authorize.routes';
import { clientRegistrationRoutes } from './client-registration.routes';
import type { DocumentFetcher } from './client-metadata-document';
import { AUTHORIZATION_SERVER_METADATA_PATH } from './oauth-metadata.routes';
import { oauthErrorHandler } from './oauth-errors';
import { revocationRoutes } from './revocation.routes';
import { tokenRoutes } from './token.routes';

export const OAUTH_PROTOCOL_PREFIX = '/api/oauth';

/**
 * The paths OAuth clients call from anywhere, without the session cookie: open cross-origin
 * (CORS without credentials) and not the cross-site guard's to protect. The consent routes under
 * /api/auth/oauth are the signed-in user's and stay behind both.
 */
export function isOAuthPublicPath(path: string): boolean {
  return (
    matchesPrefix(path, OAUTH_PROTOCOL_PREFIX) ||
    matchesPrefix(path, AUTHORIZATION_SERVER_METADATA_PATH)
  );
}

export interface OAuthProtocolOptions {
  db: Kysely<Database>;
  /** PUBLIC_BASE_URL without a trailing slash. */
  issuer: string;
  fetchDocument: DocumentFetcher;
}

/**
 * `/api/oauth/*`: registration, authorize, token and revocation (behind the per-IP limit), every
 * refusal in the OAuth error shape (`invalid_client_metadata` for registration's, else
 * `invalid_request` for anything the client sent that did not parse).
 */
export function oauthProtocolRoutes(options: OAuthProtocolOptions): Router {
  const { db, issuer } = options;
  const router = Router();
  router.use(clientRegistrationRoutes(db), oauthErrorHandler('invalid_client_metadata'));
  router.use(
    authorizeRoutes({
      db,
      issuer,
      resource: mcpResourceUrl(issuer),
      fetchDocument: options.fetchDocument,
    }),
    tokenRoutes(db),
    revocationRoutes(db),
    oauthErrorHandler('invalid_request'),
  );
  return router;
}
