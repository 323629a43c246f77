import { WORKFLOW_RUN_STATUSES } from '@crm/shared/db';
import { cursorPageQuerySchema, timeRangeFields, timeRangeSchema } from '@crm/shared/pagination';
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
  /** The run this one replays (the first of the chain); null for a first run. */
  replay_of: z.uuid().nullable(),
  /** The member who asked for the replay; null for a first run. */
  replayed_by: z.uuid().nullable(),
});
export type Run = z.infer<typeof runSchema>;

export const runWithStepsSchema = runSchema.extend({
  steps: z.array(stepSchema),
  /** The replays of this run, newest first (at most MAX_REPLAYS_SHOWN). */
  replays: z.array(runSchema),
});
export type RunWithSteps = z.infer<typeof runWithStepsSchema>;

export const runResponseSchema = z.object({ run: runWithStepsSchema });

/** A run as the run lists show it: with its workflow's name. */
export const runListItemSchema = runSchema.extend({
  workflow_name: z.string().meta({ description: 'The name of the workflow the run is of' }),
});
export type RunListItem = z.infer<typeof runListItemSchema>;

/** The list's CursorPage (@crm/shared/pagination): the page, totalExact and nextCursor. */
export const runPageSchema = z.object({
  items: z.array(runListItemSchema),
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
/** The run history's filters besides the page: status and a `started_at` range. */
export const runFilterFields = {
  status: z
    .enum(WORKFLOW_RUN_STATUSES, {
      message: `status must be one of: ${WORKFLOW_RUN_STATUSES.join(', ')}`,
    })
    .optional(),
  ...timeRangeFields,
};
export const runFilterSchema = z
  .object({ status: runFilterFields.status })
  .and(timeRangeSchema)
  .transform(({ status, from, to }) => ({ status, from, to }));
export type RunFilter = z.output<typeof runFilterSchema>;
export const runPageQuery = cursorPageQuerySchema(RUN_PAGE).extend(runFilterFields);

/**
 * POST /api/automations/runs/:id/replay: without `position`, every failed step of the run is
 * sent again; with it, that one step (which must have failed).
 */
export const replaySchema = z
  .object({
    position: z
      .number({ error: 'position must be a step position (an integer from 0)' })
      .int({ message: 'position must be a step position (an integer from 0)' })
      .min(0, { message: 'position must be a step position (an integer from 0)' })
      .optional(),
  })
  .default({});
export type ReplayInput = z.infer<typeof replaySchema>;

/**
 * POST /api/automations/workflows/:id/test: an optional sample record and its module, or
 * `eventId`, one of the tenant's recent events (GET /api/events) to run on; not both.
 */
export const testRunSchema = z
  .object({
    record: z.record(z.string(), z.unknown(), { error: 'record must be an object' }).optional(),
    module: z
      .string({ error: 'module must be a string' })
      .trim()
      .min(1, { message: 'module must not be empty' })
      .max(100, { message: 'module must be at most 100 characters' })
      .optional(),
    eventId: z
      .uuid({ error: 'eventId must be the id of one of the recent events (a uuid)' })
      .optional()
      .meta({
        description:
          'Run on this recent event of the tenant (an `id` of GET /api/events): its type, ' +
          'record and payload, as if it had triggered the workflow. Not with record or module.',
      }),
  })
  .refine((input) => !(input.eventId && (input.record || input.module)), {
    message: 'give either eventId or a sample record and module, not both',
  })
  .default({});
export type TestRunInput = z.infer<typeof testRunSchema>;
/** A test run on a sample record: the body without `eventId`. */
export type SampleInput = Omit<TestRunInput, 'eventId'>;
