import { sql } from 'kysely';
import { withSystemScope, withTenant } from '@crm/shared/db';
import {
  createEvent,
  createEvents,
  eventEnvelopeSchema,
  writeEvents,
  type EventInput,
} from '@crm/shared/events';
import { createTenant, testDb } from '@crm/shared/testing';
import { ZodError } from 'zod';

const database = testDb();
afterAll(() => database.close());

const TENANT = '6f1c1c9e-8d6a-4c1e-9a51-3b2f0c7d9e10';

function leadEvent(n: number, extra: Partial<EventInput> = {}): EventInput {
  return {
    type: n % 2 ? 'lead.created' : 'lead.updated',
    tenant_id: TENANT,
    record: { module: 'leads', id: `lead-${n}` },
    data: { n, email: `l${n}@example.com` },
    ...extra,
  };
}

/** createEvent's result without the parts that differ per call (id, time). */
function comparable(envelope: ReturnType<typeof createEvent>) {
  const { id, occurred_at, ...rest } = envelope;
  expect(eventEnvelopeSchema.parse(envelope)).toEqual(envelope);
  return { idIsUuid: /^[0-9a-f-]{36}$/.test(id), occurredAtIsIso: !!Date.parse(occurred_at), rest };
}

describe('createEvents (the batch form of createEvent)', () => {
  it('makes what createEvent makes, input by input, in order, with fresh ids', () => {
    const inputs = Array.from({ length: 50 }, (_, n) => leadEvent(n));
    const batch = createEvents(inputs);
    expect(batch.map(comparable)).toEqual(inputs.map((i) => comparable(createEvent(i))));
    expect(new Set(batch.map((e) => e.id)).size).toBe(50);
    // Same key order as the schema's output, so the stored JSON is the same text.
    expect(Object.keys(batch[0])).toEqual(Object.keys(createEvent(inputs[0])));
    expect(JSON.stringify(batch[0].record)).toBe(JSON.stringify(createEvent(inputs[0]).record));
  });

  it('copies record and data, and drops keys the schema does not know, like the schema', () => {
    const data = { a: 1, nested: { b: 2 } };
    const input = {
      ...leadEvent(1),
      record: { module: 'leads', id: 'x', extra: true },
      data,
      unknownTopLevel: 'dropped',
    } as EventInput;
    const [envelope] = createEvents([input]);
    expect(envelope.record).toEqual({ module: 'leads', id: 'x' });
    expect(envelope.data).toEqual(data);
    expect(envelope.data).not.toBe(data);
    expect(envelope.data.nested).toBe(data.nested);
    expect(envelope).not.toHaveProperty('unknownTopLevel');
  });

  it('keeps an id, time and trace the caller gives, as createEvent does', () => {
    const given = {
      id: '0b6f3a52-4a8e-4d5b-9a0a-2f7f1f3c6b11',
      occurred_at: '2026-01-02T03:04:05.678Z',
      trace: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    };
    const [envelope] = createEvents([leadEvent(1, given)]);
    expect(envelope).toEqual(createEvent(leadEvent(1, given)));
  });

  it('takes unusual data objects the way the schema does (null prototype, __proto__ key)', () => {
    const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { k: 'v' });
    const protoKey = JSON.parse('{"__proto__": {"polluted": true}, "k": "v"}') as Record<
      string,
      unknown
    >;
    for (const data of [nullProto, protoKey]) {
      const [envelope] = createEvents([leadEvent(1, { data })]);
      expect(comparable(envelope)).toEqual(comparable(createEvent(leadEvent(1, { data }))));
    }
  });

  it.each([
    ['a type that is not dot-separated lower-case', { type: 'Not A Type!' }],
    ['a tenant id that is not a uuid', { tenant_id: 'tenant-1' }],
    ['an empty record id', { record: { module: 'leads', id: '' } }],
    ['a record module over 100 characters', { record: { module: 'm'.repeat(101), id: '1' } }],
    ['data that is an array', { data: [] as unknown as Record<string, unknown> }],
    ['data with a symbol key', { data: { [Symbol('s')]: 1 } as Record<string, unknown> }],
  ])('rejects %s with the ZodError createEvent throws, naming the first bad input', (_c, bad) => {
    const inputs = [leadEvent(1), leadEvent(2, bad), leadEvent(3, { type: 'Also Bad' })];
    let expected: unknown;
    try {
      createEvent(inputs[1]);
    } catch (err) {
      expected = err;
    }
    expect(expected).toBeInstanceOf(ZodError);
    expect(() => createEvents(inputs)).toThrow(ZodError);
    try {
      createEvents(inputs);
    } catch (err) {
      expect((err as ZodError).issues).toEqual((expected as ZodError).issues);
    }
  });
});

describe('writeEvents', () => {
  it('stores each envelope as sent, with its id, tenant and type, in the order given', async () => {
    const tenant = await createTenant(database);
    const inputs = Array.from({ length: 30 }, (_, n) => ({
      ...leadEvent(n),
      tenant_id: tenant.id,
    }));
    const written = await withTenant(database.db, tenant.id, (trx) => writeEvents(trx, inputs));
    const rows = await withSystemScope(database.db, (trx) =>
      trx
        .selectFrom('event_outbox')
        .select(['id', 'tenant_id', 'type', 'envelope', sql<string>`envelope->>'type'`.as('t')])
        .where('tenant_id', '=', tenant.id)
        .orderBy('seq')
        .execute(),
    );
    expect(rows).toEqual(
      written.map((e) => ({
        id: e.id,
        tenant_id: tenant.id,
        type: e.type,
        envelope: e,
        t: e.type,
      })),
    );
  });

  it('stores events of several tenants in one batch (system scope) under their own tenants', async () => {
    const a = await createTenant(database);
    const b = await createTenant(database);
    const inputs = [a, b, a].map((t, n) => ({ ...leadEvent(n), tenant_id: t.id }));
    const written = await withSystemScope(database.db, (trx) => writeEvents(trx, inputs));
    const rows = await withSystemScope(database.db, (trx) =>
      trx
        .selectFrom('event_outbox')
        .select(['id', 'tenant_id'])
        .where('tenant_id', 'in', [a.id, b.id])
        .orderBy('seq')
        .execute(),
    );
    expect(rows).toEqual(written.map((e) => ({ id: e.id, tenant_id: e.tenant_id })));
    expect(rows.map((r) => r.tenant_id)).toEqual([a.id, b.id, a.id]);
  });

  it('writes nothing for an empty list, and nothing at all when one input is bad', async () => {
    const tenant = await createTenant(database);
    await withTenant(database.db, tenant.id, async (trx) => {
      expect(await writeEvents(trx, [])).toEqual([]);
      await expect(
        writeEvents(trx, [
          { ...leadEvent(1), tenant_id: tenant.id },
          { ...leadEvent(2), tenant_id: tenant.id, type: 'Bad Type' },
        ]),
      ).rejects.toThrow(ZodError);
    });
    const count = await withSystemScope(database.db, (trx) =>
      trx
        .selectFrom('event_outbox')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('tenant_id', '=', tenant.id)
        .executeTakeFirstOrThrow(),
    );
    expect(Number(count.n)).toBe(0);
  });
});
