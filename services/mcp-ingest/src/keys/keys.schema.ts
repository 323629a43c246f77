import { MCP_SCOPES, type McpScope } from '@crm/shared/mcp-access';
import { pageQuerySchema, type PageOptions } from '@crm/shared/pagination';
import { z } from 'zod';

export type { McpScope };

/** POST /api/mcp/keys: a name, one or more scopes, and an optional expiry in the future. */
export const createKeySchema = z.object({
  name: z
    .string({ error: 'name is required' })
    .trim()
    .min(1, { error: 'name is required' })
    .max(100, { error: 'name must be at most 100 characters' }),
  scopes: z
    .array(z.enum(MCP_SCOPES, { error: `scopes must be among: ${MCP_SCOPES.join(', ')}` }), {
      error: `scopes must be a list among: ${MCP_SCOPES.join(', ')}`,
    })
    .min(1, { error: `scopes must hold at least one of: ${MCP_SCOPES.join(', ')}` })
    .transform((scopes) => [...new Set(scopes)]),
  expires_at: z.iso
    .datetime({ offset: true, error: 'expires_at must be an ISO 8601 date-time' })
    .refine((at) => Date.parse(at) > Date.now(), { error: 'expires_at must be in the future' })
    .nullish(),
});
export type CreateKey = z.infer<typeof createKeySchema>;

/** A key as the API shows it: never the secret, never its hash. */
export const keyRecordSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(MCP_SCOPES)),
  created_at: z.string(),
  created_by: z.uuid().nullable(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

export const KEY_PAGE: PageOptions<'created_at' | 'name' | 'last_used_at'> = {
  sortable: ['created_at', 'name', 'last_used_at'],
  defaultSortBy: 'created_at',
};
export const keyPageQuerySchema = pageQuerySchema(KEY_PAGE);

export const keyIdSchema = z.uuid();
