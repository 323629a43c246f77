import { payloadWeek, payloadWeekNamed, payloadWeeksAt } from '@crm/shared/db';

/*
 * The rule of the ledger payloads' partitions: a week runs from Monday 00:00 UTC to the next
 * Monday, named by its Monday; the migration and the retention worker make partitions by it,
 * and the worker reads a detached table's bounds back from its name.
 */
const at = (iso: string) => new Date(iso);

it('puts an instant in the week of the Monday before it (or on it), UTC', () => {
  expect(payloadWeek(at('2026-11-26T15:00:00Z'))).toEqual({
    name: 'inbound_event_payloads_2026_11_23',
    from: at('2026-11-23T00:00:00Z'),
    to: at('2026-11-30T00:00:00Z'),
  });
  // Monday's first instant opens its week; Sunday's last one closes the week before.
  expect(payloadWeek(at('2026-11-30T00:00:00Z')).name).toBe('inbound_event_payloads_2026_11_30');
  expect(payloadWeek(at('2026-11-29T23:59:59.999Z')).name).toBe(
    'inbound_event_payloads_2026_11_23',
  );
});

it('counts weeks across months and years, each seven days', () => {
  expect(payloadWeek(at('2026-12-30T12:00:00Z'), 1)).toMatchObject({
    name: 'inbound_event_payloads_2027_01_04',
    from: at('2027-01-04T00:00:00Z'),
  });
  expect(payloadWeek(at('2026-01-02T12:00:00Z'), -1).name).toBe(
    'inbound_event_payloads_2025_12_22',
  );
  const weeks = payloadWeeksAt(at('2026-11-26T15:00:00Z'), 3);
  expect(weeks.map((w) => w.name)).toEqual([
    'inbound_event_payloads_2026_11_23',
    'inbound_event_payloads_2026_11_30',
    'inbound_event_payloads_2026_12_07',
    'inbound_event_payloads_2026_12_14',
  ]);
  for (const [a, b] of weeks.slice(1).map((w, i) => [weeks[i], w])) expect(a.to).toEqual(b.from);
});

it('reads a week back from its name, and nothing from a name not of the rule', () => {
  expect(payloadWeekNamed('inbound_event_payloads_2026_11_23')).toEqual(
    payloadWeek(at('2026-11-25T00:00:00Z')),
  );
  for (const name of [
    'inbound_event_payloads_2026_11_24', // a Tuesday
    'inbound_event_payloads_2026_02_30', // no such day
    'inbound_event_payloads_2026_11',
    'inbound_event_payloads_2026_11_23_old',
  ]) {
    expect(payloadWeekNamed(name)).toBeUndefined();
  }
});
