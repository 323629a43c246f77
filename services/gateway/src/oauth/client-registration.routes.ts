import { randomToken } from '@crm/shared/crypto';
import { withSystemScope, type Database } from '@crm/shared/db';
import { jsonBody } from '@crm/shared/http';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { OAuthError } from './oauth-errors';
import { insertRegisteredClient } from './oauth.repository';
import { clientRegistrationSchema } from './oauth.schema';
import { redirectHost, redirectUrisRefusal } from './redirect-uri';

/** Registration bodies are a few URLs and a name. */
const REGISTRATION_BODY_LIMIT = 16 * 1024;

/**
 * `POST /register` (RFC 7591 dynamic client registration), public clients only: the client gets
 * an id of ours and no secret (it proves itself with PKCE instead). Refusals are
 * `invalid_redirect_uri` or `invalid_client_metadata` and store nothing.
 */
export function clientRegistrationRoutes(db: Kysely<Database>): Router {
  return Router().post('/register', jsonBody(REGISTRATION_BODY_LIMIT), async (req, res) => {
    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw new OAuthError(
        'invalid_client_metadata',
        'The body is a JSON object of client metadata',
      );
    const redirectRefusal = redirectUrisRefusal((body as Record<string, unknown>).redirect_uris);
    if (redirectRefusal) throw new OAuthError('invalid_redirect_uri', redirectRefusal);
    const parsed = clientRegistrationSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      throw new OAuthError('invalid_client_metadata', `${where}${issue.message}`);
    }
    const input = parsed.data;
    const clientId = randomToken(24);
    const clientName = input.client_name ?? redirectHost(input.redirect_uris[0]);
    const metadata = {
      client_name: clientName,
      redirect_uris: input.redirect_uris,
      token_endpoint_auth_method: 'none',
      grant_types: input.grant_types ?? ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    };
    const createdAt = await withSystemScope(db, (trx) =>
      insertRegisteredClient(trx, {
        clientId,
        clientName,
        redirectUris: input.redirect_uris,
        metadata,
      }),
    );
    res
      .status(201)
      .set('Cache-Control', 'no-store')
      .json({
        client_id: clientId,
        client_id_issued_at: Math.floor(createdAt.getTime() / 1000),
        ...metadata,
      });
  });
}
