export {
  eventEnvelopeSchema,
  createEvent,
  createEvents,
  EVENT_TYPE,
  type EventEnvelope,
  type EventInput,
} from './event-envelope';
export { eventsOfRow, OUTBOX_BATCH_MAX, OUTBOX_BATCH_MIN, writeEvent, writeEvents } from './outbox';
export { OutboxRelay, type OutboxRelayOptions } from './relay';
export { outboxHealthCheck, type EventsHealth } from './outbox-health';
export {
  DEFAULT_MAX_DELIVER,
  DEFAULT_RETRY_DELAY_MS,
  type EventBus,
  type EventHandler,
  type Delivery,
  type PublishResult,
  type Subscription,
  type SubscriptionSpec,
} from './bus';
export { InProcessBus, type InProcessBusOptions } from './in-process-bus';
export { NatsBus, type NatsBusOptions } from './nats-bus';
export { createBus } from './create-bus';
export { subjectFor, typeMatches, DEFAULT_SUBJECT_PREFIX } from './subjects';
export { PLATFORM_EVENT_TYPES, type PlatformEventType } from './event-types';
