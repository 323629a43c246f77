import { randomUUID } from 'node:crypto';
import { createEvent, InProcessBus, type EventEnvelope } from '@crm/shared/events';
import { captureLogger, eventually } from '@crm/shared/testing';

function leadImported(tenantId = randomUUID()): EventEnvelope {
  return createEvent({
    type: 'lead.imported',
    tenant_id: tenantId,
    record: { module: 'leads', id: randomUUID() },
    data: { n: 1 },
  });
}

describe('in-process bus', () => {
  const logs = captureLogger();
  let bus: InProcessBus;

  beforeEach(() => {
    bus = new InProcessBus({ logger: logs.logger });
  });
  afterEach(() => bus.close());

  it('delivers a published event to a durable subscriber, after publish returns', async () => {
    const received: EventEnvelope[] = [];
    await bus.subscribe({ durable: 'automation', handler: async (e) => void received.push(e) });
    const event = leadImported();
    const result = await bus.publish(event);
    expect(result).toEqual({ duplicate: false });
    expect(received).toEqual([]);
    await bus.idle();
    expect(received).toEqual([event]);
  });

  it('delivers each event once to every durable, shared among members of one durable', async () => {
    const a: string[] = [];
    const b: string[] = [];
    const other: string[] = [];
    await bus.subscribe({ durable: 'workers', handler: async (e) => void a.push(e.id) });
    await bus.subscribe({ durable: 'workers', handler: async (e) => void b.push(e.id) });
    await bus.subscribe({ durable: 'audit', handler: async (e) => void other.push(e.id) });
    const events = [leadImported(), leadImported(), leadImported(), leadImported()];
    for (const e of events) await bus.publish(e);
    await bus.idle();
    expect([...a, ...b].sort()).toEqual(events.map((e) => e.id).sort());
    expect(a.length).toBe(2);
    expect(other).toEqual(events.map((e) => e.id));
  });

  it('hands a consumer with concurrency 3 up to three events at once', async () => {
    const handled: string[] = [];
    let inHand = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const threeInHand = new Promise<void>((resolve) => (release = resolve));
    await bus.subscribe({
      durable: 'batcher',
      concurrency: 3,
      handler: async (e) => {
        inHand += 1;
        most = Math.max(most, inHand);
        // One at a time, the first event would wait here for ever.
        if (inHand === 3) release();
        await threeInHand;
        inHand -= 1;
        handled.push(e.id);
      },
    });
    const events = Array.from({ length: 7 }, () => leadImported());
    for (const e of events) await bus.publish(e);
    await bus.idle();
    expect([...handled].sort()).toEqual(events.map((e) => e.id).sort());
    expect(most).toBe(3);
  });

  it('drops a second publish of the same event id', async () => {
    const received: string[] = [];
    await bus.subscribe({ durable: 'automation', handler: async (e) => void received.push(e.id) });
    const event = leadImported();
    expect(await bus.publish(event)).toEqual({ duplicate: false });
    expect(await bus.publish(event)).toEqual({ duplicate: true });
    await bus.idle();
    expect(received).toEqual([event.id]);
  });

  it('redelivers an event whose handler throws, with a growing attempt number', async () => {
    const attempts: number[] = [];
    await bus.subscribe({
      durable: 'flaky',
      retryDelayMs: 5,
      handler: async (_e, delivery) => {
        attempts.push(delivery.attempt);
        if (delivery.attempt < 3) throw new Error('downstream not ready');
      },
    });
    await bus.publish(leadImported());
    await eventually(() => expect(attempts).toEqual([1, 2, 3]));
  });

  it('gives up after maxDeliver and logs the poison event', async () => {
    let calls = 0;
    await bus.subscribe({
      durable: 'broken',
      maxDeliver: 3,
      retryDelayMs: 1,
      handler: async () => {
        calls++;
        throw new Error('always fails');
      },
    });
    const event = leadImported();
    await bus.publish(event);
    await eventually(() =>
      expect(logs.lines()).toContainEqual(
        expect.objectContaining({
          eventId: event.id,
          consumer: 'broken',
          attempts: 3,
          msg: expect.stringMatching(/poison/),
        }),
      ),
    );
    await bus.idle();
    expect(calls).toBe(3);
  });

  it('filters by event type pattern', async () => {
    const received: string[] = [];
    await bus.subscribe({
      durable: 'deals',
      types: ['deal.*'],
      handler: async (e) => void received.push(e.type),
    });
    await bus.publish(leadImported());
    await bus.publish(
      createEvent({
        type: 'deal.created',
        tenant_id: randomUUID(),
        record: { module: 'deals', id: '1' },
        data: {},
      }),
    );
    await bus.idle();
    expect(received).toEqual(['deal.created']);
  });

  it('hands a durable that subscribes late the events published before it', async () => {
    const event = leadImported();
    await bus.publish(event);
    const received: string[] = [];
    await bus.subscribe({ durable: 'late', handler: async (e) => void received.push(e.id) });
    await bus.idle();
    expect(received).toEqual([event.id]);
  });
});
