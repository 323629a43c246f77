import type { Logger } from 'pino';
import {
  DEFAULT_MAX_DELIVER,
  DEFAULT_RETRY_DELAY_MS,
  type EventBus,
  type EventHandler,
  type PublishResult,
  type Subscription,
  type SubscriptionSpec,
} from './bus';
import type { EventEnvelope } from './event-envelope';
import { typeMatches } from './subjects';
import { inConsumerSpan } from './trace-context';

export interface InProcessBusOptions {
  logger: Logger;
  /** Same meaning as JetStream's duplicate_window (default 2 minutes). */
  duplicateWindowMs?: number;
  /** Events kept for durables that subscribe later (JetStream keeps them in the stream). */
  retainedEvents?: number;
}

interface Pending {
  event: EventEnvelope;
  attempt: number;
}

/**
 * One durable consumer: its members share the work, events are handled in order, one at a time
 * or `concurrency` at a time.
 */
class DurableConsumer {
  private readonly members: EventHandler[] = [];
  private readonly pending: Pending[] = [];
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private running: Promise<void> | undefined;
  private nextMember = 0;

  constructor(
    readonly name: string,
    private readonly types: string[] | undefined,
    private readonly maxDeliver: number,
    private readonly retryDelayMs: number,
    private readonly logger: Logger,
    /** Events handed to the members at once (SubscriptionSpec.concurrency). */
    private readonly concurrency: number,
  ) {}

  wants(event: EventEnvelope): boolean {
    return !this.types || this.types.some((pattern) => typeMatches(pattern, event.type));
  }

  offer(event: EventEnvelope): void {
    if (!this.wants(event)) return;
    this.pending.push({ event, attempt: 1 });
    this.pump();
  }

  join(handler: EventHandler): () => Promise<void> {
    this.members.push(handler);
    this.pump();
    return async () => {
      const index = this.members.indexOf(handler);
      if (index >= 0) this.members.splice(index, 1);
      if (this.members.length === 0) this.clearRetries();
      await this.running;
    };
  }

  /** Resolves when nothing is queued, being handled or waiting for a retry. */
  async idle(): Promise<void> {
    while (this.running || this.pending.length > 0 || this.retryTimers.size > 0) {
      if (this.members.length === 0) return;
      await (this.running ?? new Promise((r) => setTimeout(r, 5)));
    }
  }

  private pump(): void {
    if (this.running || this.members.length === 0 || this.pending.length === 0) return;
    this.running = (async () => {
      // Yield to the event loop first, so publish() returns before any handler runs, as it
      // does with a real broker.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.members.length > 0 && this.pending.length > 0) {
        const taken = this.pending.splice(0, this.concurrency);
        await Promise.all(taken.map((pending) => this.deliver(pending)));
      }
    })().finally(() => {
      this.running = undefined;
      this.pump();
    });
  }

  private async deliver({ event, attempt }: Pending): Promise<void> {
    const handler = this.members[this.nextMember++ % this.members.length];
    try {
      await inConsumerSpan(event, this.name, attempt, () => handler(event, { attempt }));
    } catch (err) {
      if (attempt >= this.maxDeliver) {
        this.logger.error(
          { err, consumer: this.name, eventId: event.id, eventType: event.type, attempts: attempt },
          'event handler failed on every delivery; giving the event up as poison',
        );
        return;
      }
      this.logger.warn(
        { err, consumer: this.name, eventId: event.id, attempt },
        'event handler failed; will redeliver',
      );
      const timer = setTimeout(() => {
        this.retryTimers.delete(timer);
        this.pending.push({ event, attempt: attempt + 1 });
        this.pump();
      }, this.retryDelayMs);
      this.retryTimers.add(timer);
    }
  }

  clearRetries(): void {
    for (const timer of this.retryTimers) clearTimeout(timer);
    this.retryTimers.clear();
  }
}

/**
 * The bus of the one-process default (`npm start` without NATS_URL): the same contract as the
 * JetStream bus as far as it applies in memory (at-least-once per durable, redelivery after a
 * handler throws, poison logged after maxDeliver, duplicate ids dropped). Nothing survives a
 * restart; the outbox still holds every event until it has been handed to the bus.
 */
export class InProcessBus implements EventBus {
  readonly kind = 'in-process' as const;
  private readonly consumers = new Map<string, DurableConsumer>();
  private readonly seen = new Map<string, number>();
  private readonly retained: EventEnvelope[] = [];
  private readonly duplicateWindowMs: number;
  private readonly retainedEvents: number;
  private closed = false;

  constructor(private readonly options: InProcessBusOptions) {
    this.duplicateWindowMs = options.duplicateWindowMs ?? 120_000;
    this.retainedEvents = options.retainedEvents ?? 10_000;
  }

  async publish(event: EventEnvelope): Promise<PublishResult> {
    if (this.closed) throw new Error('event bus is closed');
    const now = Date.now();
    this.forgetOlderThan(now - this.duplicateWindowMs);
    if (this.seen.has(event.id)) return { duplicate: true };
    this.seen.set(event.id, now);
    this.retained.push(event);
    if (this.retained.length > this.retainedEvents) this.retained.shift();
    for (const consumer of this.consumers.values()) consumer.offer(event);
    return { duplicate: false };
  }

  async subscribe(spec: SubscriptionSpec): Promise<Subscription> {
    if (this.closed) throw new Error('event bus is closed');
    let consumer = this.consumers.get(spec.durable);
    if (!consumer) {
      consumer = new DurableConsumer(
        spec.durable,
        spec.types,
        spec.maxDeliver ?? DEFAULT_MAX_DELIVER,
        spec.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS,
        this.options.logger,
        Math.max(1, spec.concurrency ?? 1),
      );
      this.consumers.set(spec.durable, consumer);
      // A new durable starts from the oldest retained event, like JetStream's DeliverPolicy.All.
      for (const event of this.retained) consumer.offer(event);
    }
    const leave = consumer.join(spec.handler);
    return { stop: leave };
  }

  isConnected(): boolean {
    return !this.closed;
  }

  /** Memory never disconnects: there is nothing to come back from. */
  onReconnect(): () => void {
    return () => undefined;
  }

  /** For tests and shutdown: resolves when every consumer has nothing left to do. */
  async idle(): Promise<void> {
    await Promise.all([...this.consumers.values()].map((c) => c.idle()));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const consumer of this.consumers.values()) consumer.clearRetries();
  }

  private forgetOlderThan(cutoff: number): void {
    for (const [id, at] of this.seen) {
      if (at >= cutoff) break;
      this.seen.delete(id);
    }
  }
}
