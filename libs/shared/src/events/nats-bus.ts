import {
  AckPolicy,
  connect,
  DeliverPolicy,
  DiscardPolicy,
  headers,
  JSONCodec,
  nanos,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type MsgHdrs,
  type NatsConnection,
  type StreamConfig,
} from 'nats';
import type { Logger } from 'pino';
import {
  DEFAULT_MAX_DELIVER,
  DEFAULT_RETRY_DELAY_MS,
  type EventBus,
  type PublishResult,
  type Subscription,
  type SubscriptionSpec,
} from './bus';
import { eventEnvelopeSchema, type EventEnvelope } from './event-envelope';
import { DEFAULT_SUBJECT_PREFIX, subjectFor, typeMatches } from './subjects';
import { inConsumerSpan, traceHeadersOf } from './trace-context';

export interface NatsBusOptions {
  url: string;
  logger: Logger;
  /** Shown in the server's connection list. */
  connectionName?: string;
  streamName?: string;
  subjectPrefix?: string;
  /** Publishes of the same event id within this window are dropped by the server (default 2 min). */
  duplicateWindowMs?: number;
  /** How long events stay in the stream for consumers that are behind (default 7 days). */
  maxAgeMs?: number;
  /**
   * Copies of the stream in a NATS cluster (default 1: a single server). 3 on the 3-node
   * cluster of deploy/k8s, so the stream survives the loss of a node.
   */
  streamReplicas?: number;
  publishTimeoutMs?: number;
  /** How long a delivered event may stay unacked before JetStream redelivers it (default 30 s). */
  ackWaitMs?: number;
}

const codec = JSONCodec<unknown>();

function isNotFound(err: unknown): boolean {
  return err instanceof Error && /not found/i.test(err.message);
}

function isAlreadyExists(err: unknown): boolean {
  return err instanceof Error && /already (in use|exists)/i.test(err.message);
}

/** Events over NATS JetStream: one stream on `<prefix>.>`, durable pull consumers, explicit acks. */
export class NatsBus implements EventBus {
  readonly kind = 'nats' as const;
  private readonly subscriptions = new Set<Subscription>();
  private readonly reconnectListeners = new Set<() => void>();
  private connected = true;
  private statusGeneration = 0;
  /** Publishes awaiting their acknowledgement, failed at once when the connection drops. */
  private readonly inFlight = new Set<(err: Error) => void>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: Required<Omit<NatsBusOptions, 'connectionName'>>,
  ) {}

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const resolved = {
      streamName: 'CRM_EVENTS',
      subjectPrefix: DEFAULT_SUBJECT_PREFIX,
      duplicateWindowMs: 120_000,
      maxAgeMs: 7 * 24 * 3600 * 1000,
      streamReplicas: 1,
      publishTimeoutMs: 5000,
      ackWaitMs: 30_000,
      ...options,
    };
    const nc = await connect({
      servers: resolved.url,
      name: resolved.connectionName,
      // Keep trying for ever: the outbox holds events meanwhile, and consumers resume after.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      // No stack captured per request (each JetStream publish is one): a third of the
      // client's time under load; errors keep their message and code.
      noAsyncTraces: true,
    });
    const jsm = await nc.jetstreamManager();
    const bus = new NatsBus(nc, nc.jetstream(), jsm, resolved);
    await bus.ensureStream();
    void bus.watchStatus();
    return bus;
  }

  /** Creates the stream, or brings an existing one to this configuration (safe to run often). */
  private async ensureStream(): Promise<void> {
    const config: Partial<StreamConfig> & { name: string } = {
      name: this.options.streamName,
      subjects: [`${this.options.subjectPrefix}.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
      max_age: nanos(this.options.maxAgeMs),
      duplicate_window: nanos(this.options.duplicateWindowMs),
      num_replicas: this.options.streamReplicas,
    };
    try {
      await this.jsm.streams.info(config.name);
      await this.jsm.streams.update(config.name, config);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await this.jsm.streams.add(config);
      } catch (addErr) {
        // Another service created it between our info and add.
        if (!isAlreadyExists(addErr)) throw addErr;
        await this.jsm.streams.update(config.name, config);
      }
    }
  }

  /** Follows the client's connection status: logs changes, tells reconnect listeners. */
  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type !== 'disconnect' && status.type !== 'reconnect') continue;
      // Each change starts a new generation, so a late readiness check of an earlier
      // reconnect cannot mark a connection that has dropped again as connected.
      const generation = ++this.statusGeneration;
      if (status.type === 'disconnect') {
        this.connected = false;
        // Their acks will not come on this connection: waiting out the publish timeout (5 s)
        // would hold the relay's round, and its lock, past the server's return.
        const lost = new Error('NATS connection lost before the publish was acknowledged');
        for (const fail of this.inFlight) fail(lost);
        this.options.logger.warn(
          { nats: status.type, server: status.data },
          'NATS connection lost; reconnecting',
        );
        continue;
      }
      void this.whenJetStreamAnswers(generation).then(() => {
        if (generation !== this.statusGeneration) return;
        this.connected = true;
        this.options.logger.info(
          { nats: status.type, server: status.data },
          'NATS connection back',
        );
        for (const listener of this.reconnectListeners) {
          try {
            listener();
          } catch (err) {
            this.options.logger.error({ err }, 'NATS reconnect listener failed');
          }
        }
      });
    }
  }

  /**
   * A server that has just restarted accepts connections before JetStream has recovered its
   * streams, and publishes fail meanwhile ("no responders"): the bus counts as connected, and
   * the relay is woken, only once JetStream answers (or after 10 s, when the relay's own
   * backoff takes over). Waking the relay at once cost it a failed round and 1 + 2 + 4 s of
   * backoff after a restart.
   */
  private async whenJetStreamAnswers(generation: number): Promise<void> {
    for (let attempt = 0; attempt < 100 && generation === this.statusGeneration; attempt++) {
      try {
        await this.jsm.getAccountInfo();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  isConnected(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  onReconnect(listener: () => void): () => void {
    // Wrapped, so the same function registered twice is two registrations.
    const registration = () => listener();
    this.reconnectListeners.add(registration);
    return () => void this.reconnectListeners.delete(registration);
  }

  async publish(event: EventEnvelope): Promise<PublishResult> {
    // While reconnecting, the client would buffer the message and a new connection drops that
    // buffer: the publish would only fail at its timeout (5 s), holding the relay's round, which
    // then misses the reconnect. Failing at once leaves the event in the outbox for the wake.
    if (!this.isConnected()) throw new Error('NATS is disconnected');
    let fail: (err: Error) => void = () => undefined;
    const lost = new Promise<never>((_, reject) => (fail = reject));
    this.inFlight.add(fail);
    try {
      const ack = await Promise.race([
        this.js.publish(subjectFor(this.options.subjectPrefix, event.type), codec.encode(event), {
          msgID: event.id,
          timeout: this.options.publishTimeoutMs,
          headers: messageHeaders(event),
        }),
        lost,
      ]);
      return { duplicate: ack.duplicate };
    } finally {
      this.inFlight.delete(fail);
    }
  }

  async subscribe(spec: SubscriptionSpec): Promise<Subscription> {
    const maxDeliver = spec.maxDeliver ?? DEFAULT_MAX_DELIVER;
    const retryDelayMs = spec.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
    const patterns = spec.types?.length ? spec.types : ['>'];
    // One server-side filter when there is one pattern; several are filtered here (servers
    // before 2.10 take a single filter subject).
    const filter =
      patterns.length === 1
        ? subjectFor(this.options.subjectPrefix, patterns[0])
        : `${this.options.subjectPrefix}.>`;
    await this.ensureConsumer({
      durable_name: spec.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      max_deliver: maxDeliver,
      ack_wait: nanos(this.options.ackWaitMs),
      filter_subject: filter,
    });
    const consumer = await this.js.consumers.get(this.options.streamName, spec.durable);
    const concurrency = Math.max(1, spec.concurrency ?? 1);
    // Pulled ahead: at least as many as may be in hand, so a batching handler's batch can fill.
    const messages: ConsumerMessages = await consumer.consume({
      max_messages: Math.max(64, concurrency),
    });
    let stopping = false;
    const handling = new Set<Promise<void>>();
    const loop = (async () => {
      for await (const msg of messages) {
        // Pulled ahead (up to max_messages) but not started when stop() came: handed back at
        // once, so another instance (or this one after its restart) takes them now rather than
        // after ack_wait; the shutdown waits only for the handlers already running.
        if (stopping) {
          msg.nak();
          continue;
        }
        const handled = this.handle(msg, spec, patterns, maxDeliver, retryDelayMs).finally(() =>
          handling.delete(handled),
        );
        handling.add(handled);
        if (handling.size >= concurrency) await Promise.race(handling);
      }
      await Promise.all(handling);
    })();
    const subscription: Subscription = {
      stop: async () => {
        stopping = true;
        this.subscriptions.delete(subscription);
        await messages.close();
        await loop;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  private async ensureConsumer(
    config: Partial<ConsumerConfig> & { durable_name: string },
  ): Promise<void> {
    const stream = this.options.streamName;
    try {
      await this.jsm.consumers.add(stream, config);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const { max_deliver, ack_wait, filter_subject } = config;
      await this.jsm.consumers.update(stream, config.durable_name, {
        max_deliver,
        ack_wait,
        filter_subject,
      });
    }
  }

  private async handle(
    msg: JsMsg,
    spec: SubscriptionSpec,
    patterns: string[],
    maxDeliver: number,
    retryDelayMs: number,
  ): Promise<void> {
    const parsed = eventEnvelopeSchema.safeParse(safeDecode(msg));
    if (!parsed.success) {
      this.options.logger.error(
        { consumer: spec.durable, subject: msg.subject, seq: msg.seq },
        'not an event envelope; dropped',
      );
      msg.term();
      return;
    }
    const event = parsed.data;
    if (!patterns.some((p) => typeMatches(p, event.type))) {
      msg.ack();
      return;
    }
    const attempt = msg.info.deliveryCount;
    try {
      await inConsumerSpan(event, spec.durable, attempt, () => spec.handler(event, { attempt }));
      msg.ack();
    } catch (err) {
      if (attempt >= maxDeliver) {
        this.options.logger.error(
          {
            err,
            consumer: spec.durable,
            eventId: event.id,
            eventType: event.type,
            attempts: attempt,
          },
          'event handler failed on every delivery; giving the event up as poison',
        );
        msg.term();
      } else {
        this.options.logger.warn(
          { err, consumer: spec.durable, eventId: event.id, attempt },
          'event handler failed; will redeliver',
        );
        msg.nak(retryDelayMs);
      }
    }
  }

  /** For tests: removes the stream and everything in it. */
  async deleteStream(): Promise<void> {
    await this.jsm.streams.delete(this.options.streamName);
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    if (this.nc.isClosed()) return;
    // Draining needs the server: while the client is reconnecting (the server gone) it would
    // wait on a connection that may never come back and leave its reconnect timer running, so
    // a disconnected bus is closed outright (its unacked deliveries are redelivered anyway).
    if (this.isConnected()) await this.nc.drain();
    else await this.nc.close();
  }
}

/** The writer's trace context as NATS headers (W3C names), or none when there is none. */
function messageHeaders(event: EventEnvelope): MsgHdrs | undefined {
  const entries = traceHeadersOf(event);
  if (entries.length === 0) return undefined;
  const hdrs = headers();
  for (const [name, value] of entries) hdrs.set(name, value);
  return hdrs;
}

function safeDecode(msg: JsMsg): unknown {
  try {
    return codec.decode(msg.data);
  } catch {
    return undefined;
  }
}
