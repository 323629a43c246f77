import { NETWORK_ACTIVITY_KINDS } from '@crm/shared/db';
import {
  activityKindOf,
  NETWORK_ACTIVITY_KIND_BY_TYPE,
} from '../src/providers/network/activity-kinds';
import { classifyBatch, eventsOf, MAX_EVENTS_PER_DELIVERY } from '../src/providers/network/batch';
import {
  networkDeliverySchema,
  networkEventSchema,
  supportedEventSchema,
} from '../src/providers/network/network.schema';
import { parseJsonBody } from '@crm/shared/inbound';
import fc from 'fast-check';

/**
 * The network receiver's pure steps: the one type -> kind mapping table, the accepted body
 * shapes and the per-delivery limit, how each event is classified and normalised, and the zod
 * schemas of a delivery agreeing with that hand-written classification.
 */
describe('the activity kind mapping table', () => {
  it('maps exactly the seven partner types to the seven strict kinds, one to one', () => {
    expect(NETWORK_ACTIVITY_KIND_BY_TYPE).toEqual({
      INVITATION_SENT: 'network_connection_sent',
      INVITATION_ACCEPTED: 'network_connection_accepted',
      MESSAGE_SENT: 'network_message_sent',
      MESSAGE_RECEIVED: 'network_message_received',
      PROFILE_VIEWED: 'network_profile_viewed',
      POST_REACTION: 'network_post_reaction',
      POST_COMMENT: 'network_post_comment',
    });
    expect(Object.values(NETWORK_ACTIVITY_KIND_BY_TYPE).sort()).toEqual(
      [...NETWORK_ACTIVITY_KINDS].sort(),
    );
  });

  it.each([
    'invitation_sent',
    ' INVITATION_SENT',
    'network_connection_sent',
    'constructor',
    '__proto__',
    'toString',
    '',
    7,
    null,
    undefined,
  ])('treats %p as unsupported', (type) => {
    expect(activityKindOf(type)).toBeUndefined();
  });
});

describe('eventsOf: the accepted body shapes', () => {
  const event = { id: 'e1', type: 'MESSAGE_SENT', account_id: 'a1' };

  it('accepts one event object, { events: [...] } and a top-level array', () => {
    expect(eventsOf(event)).toEqual({ events: [event], isBatch: false });
    expect(eventsOf({ events: [event, event] })).toEqual({ events: [event, event], isBatch: true });
    expect(eventsOf([event])).toEqual({ events: [event], isBatch: true });
    expect(eventsOf([])).toEqual({ events: [], isBatch: true });
  });

  it.each([
    ['"text"'],
    ['42'],
    ['null'],
    ['true'],
    ['{"events":{"id":"e1"}}'],
    ['{"events":null}'],
  ])('refuses %s with 400 Webhook processing failed', (json) => {
    expect(() => eventsOf(JSON.parse(json))).toThrow(
      expect.objectContaining({ status: 400, error: 'Webhook processing failed' }),
    );
  });

  it('accepts 5,000 events and refuses 5,001 with 400', () => {
    expect(MAX_EVENTS_PER_DELIVERY).toBe(5000);
    expect(eventsOf(new Array(5000).fill({})).events).toHaveLength(5000);
    expect(() => eventsOf({ events: new Array(5001).fill({}) })).toThrow(
      expect.objectContaining({
        status: 400,
        message: 'A delivery may carry at most 5000 events',
        details: { limit: 5000, received: 5001 },
      }),
    );
  });
});

describe('classifyBatch', () => {
  it('counts non-objects and unmapped types as unsupported, and account-less events apart', () => {
    const batch = classifyBatch([
      { id: 'e1', type: 'POST_COMMENT', account_id: 'acc-1' },
      'MESSAGE_SENT',
      null,
      42,
      ['MESSAGE_SENT'],
      { id: 'e2', type: 'POST_SHARED', account_id: 'acc-1' },
      { id: 'e3', account_id: 'acc-1' },
      { id: 'e4', type: 'MESSAGE_SENT' },
      { id: 'e5', type: 'MESSAGE_SENT', account_id: '  ' },
      { id: 'e6', type: 'MESSAGE_SENT', account_id: { id: 'acc-1' } },
    ]);
    expect(batch.unsupported).toBe(6);
    expect(batch.withoutAccount).toBe(3);
    expect(batch.activities.map((a) => a.externalEventId)).toEqual(['e1']);
    expect(batch.eventType).toBe('batch');
  });

  it('normalises an event for network_events, keeping the whole event as its payload', () => {
    const event = {
      id: 991,
      type: 'INVITATION_ACCEPTED',
      account_id: 12345,
      occurred_at: '2024-04-30T09:15:00+02:00',
      actor: { name: 'Ann', profile_url: 'https://network.example/ann' },
      extra: [1, 2],
    };
    const batch = classifyBatch(event);
    expect(batch.eventType).toBe('INVITATION_ACCEPTED');
    expect(batch.activities).toEqual([
      {
        externalAccountId: '12345',
        externalEventId: '991',
        kind: 'network_connection_accepted',
        eventType: 'INVITATION_ACCEPTED',
        actor: event.actor,
        occurredAt: new Date('2024-04-30T07:15:00Z'),
        payload: event,
      },
    ]);
  });

  it('stores no id, actor or time when they are absent or unreadable', () => {
    const [activity] = classifyBatch({
      type: 'PROFILE_VIEWED',
      account_id: 'acc-1',
      occurred_at: 'yesterday',
    }).activities;
    expect(activity).toMatchObject({ externalEventId: null, actor: null, occurredAt: null });
    expect(
      classifyBatch({ type: 'PROFILE_VIEWED', account_id: 'a', occurred_at: '+275760-01-01' })
        .activities[0].occurredAt,
    ).toBeNull();
    expect(
      classifyBatch({ type: 'PROFILE_VIEWED', account_id: 'a', occurred_at: 1714460100 })
        .activities[0].occurredAt,
    ).toBeNull();
  });

  it('digests ids longer than 200 characters (an index cannot hold any length)', () => {
    const [activity] = classifyBatch({
      id: 'x'.repeat(201),
      type: 'POST_REACTION',
      account_id: 'acc-1',
    }).activities;
    expect(activity.externalEventId).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('replaces NUL and unpaired surrogates (which Postgres refuses) in ids, keys and values', () => {
    // The receiver classifies what parseJsonBody returns, which is where they are replaced.
    const event = parseJsonBody(
      Buffer.from(
        '{"id":"e\\u0000","type":"MESSAGE_RECEIVED","account_id":"acc","actor":{"n\\u0000":"\\ud800x"}}',
      ),
    );
    const [activity] = classifyBatch(event).activities;
    expect(activity.externalEventId).toBe('e\uFFFD');
    expect(activity.actor).toEqual({ 'n\uFFFD': '\uFFFDx' });
    expect(JSON.stringify(activity.payload)).not.toMatch(/\\u0000|\\ud800/);
    expect((activity.payload as { actor: unknown }).actor).toEqual({ 'n\uFFFD': '\uFFFDx' });
  });
});

describe('networkDeliverySchema and networkEventSchema (the zod schemas of a delivery)', () => {
  const SUPPORTED = Object.keys(NETWORK_ACTIVITY_KIND_BY_TYPE);
  const scalar = fc.oneof(
    fc.constantFrom('', '  ', 'a', ' acc-1 ', null, true, 0, -1, 1.5, 1e308, 'x'.repeat(201)),
    fc.string({ maxLength: 6, unit: 'binary' }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
  const value = fc.oneof(
    { arbitrary: scalar, weight: 4 },
    fc.constant([]),
    fc.constant({}),
    fc.array(scalar, { maxLength: 2 }),
    fc.dictionary(fc.constantFrom('id', 'type', '__proto__'), scalar, { maxKeys: 2 }),
  );
  const type = fc.oneof(
    { arbitrary: fc.constantFrom(...SUPPORTED), weight: 6 },
    fc.constantFrom('post.liked', 'message_sent', ' MESSAGE_SENT', '__proto__', 'constructor'),
    value,
  );
  const event = fc.oneof(
    {
      arbitrary: fc.record(
        {
          id: value,
          type,
          account_id: value,
          occurred_at: fc.constantFrom('2024-04-30T09:15:00Z', 'yesterday', 1714460100),
          actor: value,
          // Hostile keys: a prototype's name, or `events` inside an event.
          ['__proto__']: value,
          constructor: value,
          events: value,
        },
        { requiredKeys: [] },
      ),
      weight: 8,
    },
    value,
  );
  const events = fc.oneof(
    { arbitrary: fc.array(event, { maxLength: 12 }), weight: 20 },
    // Around the limit: the events themselves do not matter there.
    fc
      .constantFrom(MAX_EVENTS_PER_DELIVERY, MAX_EVENTS_PER_DELIVERY + 1)
      .map((n) => new Array<unknown>(n).fill({ type: 'MESSAGE_SENT', account_id: 'a' })),
  );
  const body = fc.oneof(
    { arbitrary: events, weight: 4 },
    { arbitrary: events.map((list) => ({ events: list })), weight: 4 },
    { arbitrary: event, weight: 4 },
    fc.record({ events: value }),
    value,
  );
  /** What the receiver classifies: the body as JSON bytes, read back by parseJsonBody. */
  const received = body.map((candidate) =>
    parseJsonBody(Buffer.from(JSON.stringify(candidate) ?? 'null')),
  );

  it('accepts and refuses exactly what classifyBatch does, for the same reason', () => {
    const seen = { accepted: 0, refused: 0, stored: 0, unsupported: 0, withoutAccount: 0 };
    fc.assert(
      fc.property(received, (candidate) => {
        const parsed = networkDeliverySchema.safeParse(candidate);
        let fast: ReturnType<typeof classifyBatch>;
        try {
          fast = classifyBatch(candidate);
        } catch (error) {
          expect(error).toMatchObject({ status: 400 });
          expect(parsed.success).toBe(false);
          if (!parsed.success) {
            expect(parsed.error.issues[0].message).toBe((error as Error).message);
          }
          seen.refused++;
          return;
        }
        expect(parsed.success).toBe(true);
        const list = (parsed.data as { events: unknown[] }).events;
        // Each event: stored, unsupported (no supported type) or without an account id.
        const supported = list.filter((e) => supportedEventSchema.safeParse(e).success);
        const stored = supported.filter((e) => networkEventSchema.safeParse(e).success);
        expect(fast.unsupported).toBe(list.length - supported.length);
        expect(fast.withoutAccount).toBe(supported.length - stored.length);
        expect(fast.activities.map((a) => a.eventType)).toEqual(
          stored.map((e) => (e as { type: string }).type),
        );
        seen.accepted++;
        seen.stored += stored.length;
        seen.unsupported += fast.unsupported;
        seen.withoutAccount += fast.withoutAccount;
      }),
      { numRuns: 1500 },
    );
    // Every verdict was exercised.
    expect(seen.accepted).toBeGreaterThan(100);
    expect(seen.refused).toBeGreaterThan(50);
    expect(seen.stored).toBeGreaterThan(100);
    expect(seen.unsupported).toBeGreaterThan(100);
    expect(seen.withoutAccount).toBeGreaterThan(100);
  });
});
