import { cursorPageQuerySchema } from '@crm/shared/pagination';
import { z } from 'zod';

export const stepSchema = z.object({
  position: z.number(),
  node_type: z.string(),
  node_name: z.string().nullable(),
  status: z.enum(['success', 'failed']),
  message: z.string(),
  response_status: z.number().nullable(),
  duration_ms: z.number(),
});
export type Step = z.infer<typeof stepSchema>;

export const runSchema = z.object({
  id: z.uuid(),
  workflow_id: z.uuid(),
  event_id: z.uuid().nullable(),
  event_type: z.string(),
  module: z.string(),
  record_id: z.string(),
  is_test: z.boolean(),
  status: z.enum(['running', 'success', 'failed']),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});
export type Run = z.infer<typeof runSchema>;

export const runWithStepsSchema = runSchema.extend({ steps: z.array(stepSchema) });
export type RunWithSteps = z.infer<typeof runWithStepsSchema>;

export const runResponseSchema = z.object({ run: runWithStepsSchema });
/** The list's CursorPage (@crm/shared/pagination): the page, totalExact and nextCursor. */
export const runPageSchema = z.object({
  items: z.array(runSchema),
  total: z.number(),
  totalExact: z.boolean(),
  page: z.number(),
  pageSize: z.number(),
  totalPages: z.number(),
  nextCursor: z.string().nullable(),
});

/** Runs list newest first; the page helper's parameters. */
export const RUN_PAGE = {
  sortable: ['started_at'] as ['started_at'],
  defaultSortBy: 'started_at' as const,
};
export const runPageQuery = cursorPageQuerySchema(RUN_PAGE);

/** POST /api/automations/workflows/:id/test: an optional sample record and its module. */
export const testRunSchema = z
  .object({
    record: z.record(z.string(), z.unknown(), { error: 'record must be an object' }).optional(),
    module: z
      .string({ error: 'module must be a string' })
      .trim()
      .min(1, { message: 'module must not be empty' })
      .max(100, { message: 'module must be at most 100 characters' })
      .optional(),
  })
  .default({});
export type TestRunInput = z.infer<typeof testRunSchema>;
