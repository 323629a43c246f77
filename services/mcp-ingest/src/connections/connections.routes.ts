import { withTenant, type Database } from '@crm/shared/db';
import { errors, sendSuccess } from '@crm/shared/http';
import { identityOf, requireRole } from '@crm/shared/identity';
import { parsePageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { listConnections, revokeConnection } from './connections.repository';
import { CONNECTION_PAGE, connectionIdSchema } from './connections.schema';

/**
 * /api/mcp/connections (Session): the MCP clients users of the tenant connected over OAuth (one
 * grant each). Owners and admins only, to list and to revoke: a connection acts with the data
 * of the whole tenant, as an MCP key does.
 */
export function connectionRoutes(db: Kysely<Database>): Router {
  const router = Router();
  const managers = requireRole('owner', 'admin');

  router.get('/api/mcp/connections', managers, async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parsePageQuery(req.query, CONNECTION_PAGE);
    sendSuccess(res, await withTenant(db, tenantId, (trx) => listConnections(trx, tenantId, page)));
  });

  router.delete('/api/mcp/connections/:id', managers, async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = String(req.params.id);
    if (!connectionIdSchema.safeParse(id).success) throw errors.notFound('Connection not found');
    const connection = await withTenant(db, tenantId, (trx) => revokeConnection(trx, tenantId, id));
    if (!connection) throw errors.notFound('Connection not found');
    sendSuccess(res, { connection }, { message: 'Connection revoked' });
  });

  return router;
}
