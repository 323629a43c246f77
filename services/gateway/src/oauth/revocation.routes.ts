import type { Database } from '@crm/shared/db';
import { formBody } from '@crm/shared/http';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { oauthParams } from './oauth.schema';
import { revokeToken } from './token-grants';
import { OAUTH_FORM_LIMIT } from './token.routes';

/**
 * `POST /revoke` (RFC 7009, form-encoded): 200 whether or not the token was known, so the answer
 * tells a caller nothing; only a request without a token is refused (`invalid_request`).
 */
export function revocationRoutes(db: Kysely<Database>): Router {
  return Router().post('/revoke', formBody(OAUTH_FORM_LIMIT), async (req, res) => {
    const params = oauthParams(req.body);
    const token = params.required('token');
    // Read so a repeated or malformed one is refused like any parameter; one table holds both kinds.
    params.optional('token_type_hint');
    await revokeToken(db, token, params.optional('client_id'));
    res.status(200).set('Cache-Control', 'no-store').json({});
  });
}
