import { MCP_SCOPES } from '@crm/shared/mcp-access';
import { pageQuerySchema, type PageOptions } from '@crm/shared/pagination';
import { z } from 'zod';

/**
 * An OAuth connection as the API shows it: a grant a user of the tenant approved for an MCP
 * client (never a token or its hash).
 */
export const connectionRecordSchema = z.object({
  id: z.uuid(),
  client_id: z.string(),
  client_name: z.string(),
  redirect_host: z.string(),
  scopes: z.array(z.enum(MCP_SCOPES)),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  user_id: z.uuid().nullable(),
});

export const CONNECTION_PAGE: PageOptions<'created_at' | 'client_name' | 'last_used_at'> = {
  sortable: ['created_at', 'client_name', 'last_used_at'],
  defaultSortBy: 'created_at',
};
export const connectionPageQuerySchema = pageQuerySchema(CONNECTION_PAGE);

export const connectionIdSchema = z.uuid();
