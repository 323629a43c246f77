import { cursorPageQuerySchema } from '@crm/shared/pagination';
import { conditionSchema, nodeSchema } from '@crm/shared/automation';
import { z } from 'zod';

// The definition's rules live in @crm/shared/automation (the console's builder uses them too).
export * from '@crm/shared/automation';

export const WORKFLOW_PAGE = {
  sortable: ['created_at', 'updated_at', 'name'] as ['created_at', 'updated_at', 'name'],
  defaultSortBy: 'created_at' as const,
};
export const workflowPageQuery = cursorPageQuerySchema(WORKFLOW_PAGE);

/** A workflow as the API renders it (never with its secret). */
export const workflowSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  enabled: z.boolean(),
  trigger: z.object({ event: z.string(), conditions: z.array(conditionSchema) }),
  nodes: z.array(nodeSchema),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Workflow = z.infer<typeof workflowSchema>;

export const workflowResponseSchema = z.object({ workflow: workflowSchema });
/** Creation and rotate-secret: the secret is shown in these two answers only. */
export const workflowWithSecretResponseSchema = z.object({
  workflow: workflowSchema,
  signing_secret: z.string(),
});
/** The list's CursorPage (@crm/shared/pagination): the page, totalExact and nextCursor. */
export const workflowPageSchema = z.object({
  items: z.array(workflowSchema),
  total: z.number(),
  totalExact: z.boolean(),
  page: z.number(),
  pageSize: z.number(),
  totalPages: z.number(),
  nextCursor: z.string().nullable(),
});
