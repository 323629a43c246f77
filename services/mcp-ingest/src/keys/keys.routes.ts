import { withTenant, type Database } from '@crm/shared/db';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf, requireRole } from '@crm/shared/identity';
import { parsePageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { generateKey } from './api-key';
import { insertKey, listKeys, revokeKey } from './keys.repository';
import { createKeySchema, KEY_PAGE, keyIdSchema } from './keys.schema';

/**
 * /api/mcp/keys (Session): every member may list the tenant's keys (never a secret or hash);
 * owners and admins create them (the key is in the answer once) and revoke them.
 */
export function keyRoutes(db: Kysely<Database>, bodyLimitBytes: number): Router {
  const router = Router();
  const managers = requireRole('owner', 'admin');

  router.get('/api/mcp/keys', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parsePageQuery(req.query, KEY_PAGE);
    sendSuccess(res, await withTenant(db, tenantId, (trx) => listKeys(trx, tenantId, page)));
  });

  router.post('/api/mcp/keys', managers, jsonBody(bodyLimitBytes), async (req, res) => {
    const { tenantId, userId } = identityOf(req);
    const input = validate(createKeySchema, req.body, 'key');
    const key = generateKey();
    const record = await withTenant(db, tenantId, (trx) =>
      insertKey(trx, tenantId, {
        name: input.name,
        prefix: key.prefix,
        hash: key.hash,
        scopes: input.scopes,
        createdBy: userId,
        expiresAt: input.expires_at ?? null,
      }),
    );
    sendSuccess(
      res,
      { key: record, api_key: key.secret },
      { status: 201, message: 'Key created: copy api_key now, it is not shown again' },
    );
  });

  router.delete('/api/mcp/keys/:id', managers, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = String(req.params.id);
    if (!keyIdSchema.safeParse(id).success) throw errors.notFound('Key not found');
    const key = await withTenant(db, tenantId, (trx) => revokeKey(trx, tenantId, id));
    if (!key) throw errors.notFound('Key not found');
    sendSuccess(res, { key }, { message: 'Key revoked' });
  });

  return router;
}
