import type { EventEnvelope } from './event-envelope';

export interface PublishResult {
  /** True when an event with the same id was already published (within the duplicate window). */
  duplicate: boolean;
}

export interface Delivery {
  /** 1 on first delivery, then 2, 3, ... on redeliveries. */
  attempt: number;
}

export type EventHandler = (event: EventEnvelope, delivery: Delivery) => Promise<void>;

export interface SubscriptionSpec {
  /** Durable consumer name: subscribers sharing it share the work, and it survives restarts (NATS). */
  durable: string;
  /** Event-type patterns (`lead.imported`, `lead.*`, `>`); default every type. */
  types?: string[];
  handler: EventHandler;
  /** Deliveries before a failing event is given up as poison and logged (default 5). */
  maxDeliver?: number;
  /** Wait before a failed event is delivered again (default 1000 ms). */
  retryDelayMs?: number;
  /**
   * Events handled at once (default 1: one after the other, in order). More lets a handler
   * batch the events in hand (each still acked only once its own handler call resolves), for a
   * consumer whose work does not depend on the order.
   */
  concurrency?: number;
}

export interface Subscription {
  /** Stops taking new events; resolves when the one being handled has finished. */
  stop(): Promise<void>;
}

/**
 * Both transports (NATS JetStream, in-process) behind one interface: at-least-once delivery to
 * each durable consumer, explicit ack after the handler resolves, redelivery when it throws,
 * duplicate publishes of one event id dropped. Handlers must be idempotent per event id.
 */
export interface EventBus {
  readonly kind: 'nats' | 'in-process';
  publish(event: EventEnvelope): Promise<PublishResult>;
  subscribe(spec: SubscriptionSpec): Promise<Subscription>;
  /**
   * False while the transport cannot take events (NATS disconnected and reconnecting, or the
   * bus closed). The platform health check reports it.
   */
  isConnected(): boolean;
  /**
   * Calls `listener` each time the transport is back after a disconnect (NATS reconnected), so
   * whoever backed off meanwhile, such as the outbox relay, can resume at once. Returns a
   * function that removes the listener. The in-process bus never disconnects.
   */
  onReconnect(listener: () => void): () => void;
  close(): Promise<void>;
}

export const DEFAULT_MAX_DELIVER = 5;
export const DEFAULT_RETRY_DELAY_MS = 1000;
