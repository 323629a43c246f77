import { asTenant, withSystemScope, type Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { MCP_SCOPE_DESCRIPTIONS, newOAuthSecret, type McpScope } from '@crm/shared/mcp-access';
import { Router, type Request } from 'express';
import type { Kysely } from 'kysely';
import { authenticate } from '../auth/require-session';
import { listMemberships, type Membership } from '../tenancy/cross-tenant-lookups';
import {
  deleteAuthorizationRequest,
  findLiveAuthorizationRequest,
  insertCode,
  insertGrant,
} from './oauth.repository';
import { AUTHORIZATION_REQUEST_ID, consentDecisionSchema } from './oauth.schema';
import { isMetadataDocumentUrl } from './client-metadata-document';
import { redirectHost, redirectWith } from './redirect-uri';

/** An authorization code is exchanged at once by a working client: five minutes is plenty. */
export const CODE_TTL_SECONDS = 5 * 60;

/** Who may connect a client to a tenant: its owners and admins. */
function grantingMemberships(memberships: Membership[]): Membership[] {
  return memberships.filter(
    (m) => m.status === 'active' && (m.role === 'owner' || m.role === 'admin'),
  );
}

function requestIdOf(req: Request): string {
  const id = String(req.params.id);
  if (!AUTHORIZATION_REQUEST_ID.test(id)) throw requestNotFound();
  return id;
}

const requestNotFound = () => errors.notFound('Unknown or expired authorization request');

export interface ConsentOptions {
  db: Kysely<Database>;
  issuer: string;
  bodyLimitBytes: number;
}

/**
 * `/api/auth/oauth/requests/:id`: what the console's consent page shows and the user's answer.
 * They need a signed-in user (the session cookie; 401 otherwise) but no selected tenant: the
 * user picks the tenant to connect among those they own or administer. The decision is a cookie
 * POST, so the gateway's cross-site guard stands in front of it.
 */
export function consentRoutes(options: ConsentOptions): Router {
  const { db, issuer } = options;
  const router = Router();

  router.get('/:id', async (req, res) => {
    const user = await authenticate(db, req);
    const id = requestIdOf(req);
    const request = await withSystemScope(db, (trx) => findLiveAuthorizationRequest(trx, id));
    if (!request) throw requestNotFound();
    const memberships = grantingMemberships(await listMemberships(db, user.id));
    sendSuccess(res, {
      id: request.id,
      client: {
        client_id: request.client_id,
        name: request.client_name,
        redirect_host: redirectHost(request.redirect_uri),
        // A metadata document's host vouches for the name it gives; a client that registered
        // itself can call itself anything, so the page says its name is unverified.
        document_host: isMetadataDocumentUrl(request.client_id)
          ? new URL(request.client_id).host
          : null,
      },
      scopes: request.scopes.map((scope) => ({
        scope,
        description: MCP_SCOPE_DESCRIPTIONS[scope as McpScope],
      })),
      tenants: memberships.map((m) => ({ id: m.tenantId, name: m.name, role: m.role })),
      expires_at: request.expires_at,
    });
  });

  router.post('/:id/decision', jsonBody(options.bodyLimitBytes), async (req, res) => {
    const user = await authenticate(db, req);
    const id = requestIdOf(req);
    const decision = validate(consentDecisionSchema, req.body, 'decision');
    const tenantId = decision.decision === 'approve' ? decision.tenant_id.toLowerCase() : undefined;
    const granting = tenantId
      ? grantingMemberships(await listMemberships(db, user.id)).find((m) => m.tenantId === tenantId)
      : undefined;
    const redirectTo = await withSystemScope(db, async (trx) => {
      // Locked and deleted in this transaction: a request is answered once.
      const request = await findLiveAuthorizationRequest(trx, id, true);
      if (!request) throw requestNotFound();
      const answer = { state: request.state ?? undefined, iss: issuer };
      if (!tenantId) {
        await deleteAuthorizationRequest(trx, id);
        return redirectWith(request.redirect_uri, { error: 'access_denied', ...answer });
      }
      if (!granting)
        throw errors.forbidden('Only an owner or admin of the tenant can connect a client to it');
      await deleteAuthorizationRequest(trx, id);
      const grantId = await asTenant(trx, tenantId, (tenantTrx) =>
        insertGrant(tenantTrx, {
          tenantId,
          clientId: request.client_id,
          clientName: request.client_name,
          redirectHost: redirectHost(request.redirect_uri),
          userId: user.id,
          scopes: request.scopes,
          resource: request.resource,
        }),
      );
      const code = newOAuthSecret('code');
      await insertCode(trx, {
        codeHash: code.hash,
        grantId,
        redirectUri: request.redirect_uri,
        codeChallenge: request.code_challenge,
        ttlSeconds: CODE_TTL_SECONDS,
      });
      return redirectWith(request.redirect_uri, { code: code.secret, ...answer });
    });
    res.set('Cache-Control', 'no-store');
    sendSuccess(res, { redirect_to: redirectTo });
  });

  return router;
}
