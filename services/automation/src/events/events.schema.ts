import { PLATFORM_EVENT_TYPES } from '@crm/shared/events';
import { cursorPageQuerySchema } from '@crm/shared/pagination';
import { z } from 'zod';

export const EVENT_PAGE = {
  sortable: ['created_at'] as ['created_at'],
  defaultSortBy: 'created_at' as const,
};

/** `type`: one of the platform's event types, given once (a workflow trigger names the same). */
export const eventFiltersSchema = z.object({
  type: z
    .enum(PLATFORM_EVENT_TYPES, {
      message: `type must be given once, one of: ${PLATFORM_EVENT_TYPES.join(', ')}`,
    })
    .optional(),
});
export type EventFilters = z.infer<typeof eventFiltersSchema>;

export const eventPageQuery = cursorPageQuerySchema(EVENT_PAGE).extend(eventFiltersSchema.shape);

/** An event as the list shows it: an outbox row; a batch row shows its first event. */
export const platformEventSchema = z.object({
  id: z.uuid(),
  type: z.string().meta({ description: 'The event type (`batch` for a row of mixed types)' }),
  event_count: z.number().meta({
    description:
      'Events the row carries: 1, or more for a bulk write stored as one batch row (record, ' +
      'occurred_at and data are then its first event’s)',
  }),
  record: z.object({ module: z.string(), id: z.string() }),
  occurred_at: z.string(),
  created_at: z.string(),
  data: z.record(z.string(), z.unknown()).meta({ description: 'The event’s payload' }),
});

export const eventPageSchema = z.object({
  items: z.array(platformEventSchema),
  total: z.number(),
  totalExact: z.boolean(),
  page: z.number(),
  pageSize: z.number(),
  totalPages: z.number(),
  nextCursor: z.string().nullable(),
});

export const eventTypesSchema = z.object({ types: z.array(z.string()) });
