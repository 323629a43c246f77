import { z } from 'zod';
import { NETWORK_ACTIVITY_KIND_BY_TYPE } from './activity-kinds';
import { MAX_EVENTS_PER_DELIVERY, NETWORK_BATCH_ERRORS } from './batch';

/*
 * The network receiver's body as zod schemas: what the OpenAPI document shows and what the
 * receiver accepts. The receiver itself runs classifyBatch (batch.ts), the same rules written
 * out by hand, on the hot path: for a 5,000-event delivery these schemas took 5.5 ms to give
 * their verdict (the delivery, then each event) where classifyBatch took 3.2 ms to give it and
 * normalise every event besides (measured on the 2-core VM). A property test holds the two to
 * one verdict on generated (and hostile) bodies: the same accepted or refused, for the same
 * reason, and each accepted event stored, unsupported or without account alike.
 */

const SUPPORTED_TYPES = Object.keys(NETWORK_ACTIVITY_KIND_BY_TYPE) as [string, ...string[]];

/** An event of a type the mapping table stores (activity-kinds.ts); any other is unsupported. */
export const supportedEventSchema = z.looseObject({
  type: z.enum(SUPPORTED_TYPES).meta({ description: 'The partner type, matched exactly' }),
});

/** A partner id as sent: a string (not blank once trimmed) or a finite number. */
const partnerId = z.union([z.string().trim().min(1), z.number()]);

/**
 * An event that is stored: a supported type and the account id it is matched by (a supported
 * event without one is counted as `withoutAccount`). An id, a time or an actor that cannot be
 * read is stored as null rather than refused.
 */
export const networkEventSchema = supportedEventSchema
  .extend({
    account_id: partnerId.meta({ description: 'The partner account the event belongs to' }),
    id: z.unknown().optional().meta({ description: "The partner's event id (string or number)" }),
    occurred_at: z.unknown().optional().meta({ description: 'ISO 8601 time of the activity' }),
    actor: z.unknown().optional().meta({ description: 'Who acted, as the partner sends it' }),
  })
  .meta({ description: 'A partner event; others are acknowledged and counted, not stored' });

/**
 * A delivery: one event object, `{ events: [...] }` or a top-level array of events, at most
 * MAX_EVENTS_PER_DELIVERY; anything else is a 400 with NETWORK_BATCH_ERRORS' text (the first
 * issue's message). An element that is not a stored event is counted, not refused.
 */
export const networkDeliverySchema = z
  .preprocess(
    // The three shapes as the one list they carry: `{ events }` is checked as it is.
    (body) =>
      Array.isArray(body)
        ? { events: body }
        : isObject(body) && !('events' in body)
          ? { events: [body] }
          : body,
    z.object(
      {
        events: z
          .array(z.union([networkEventSchema, z.unknown()]), {
            error: NETWORK_BATCH_ERRORS.eventsNotAnArray,
          })
          .max(MAX_EVENTS_PER_DELIVERY, { error: NETWORK_BATCH_ERRORS.tooManyEvents }),
      },
      { error: NETWORK_BATCH_ERRORS.notAShape },
    ),
  )
  .meta({
    description:
      'Also accepted: one event object, or a top-level array of events. At most ' +
      `${MAX_EVENTS_PER_DELIVERY} events.`,
  });

/** The readiness probe's query: an optional `challenge`, echoed back; a repeated one is a 400. */
export const challengeQuerySchema = z.object({
  challenge: z.string({ error: '`challenge` must be a single value' }).optional(),
});

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
