/*
 * The weeks of `inbound_event_payloads` (migration 0031): the inbound ledger's payloads, in a
 * table partitioned by week on `received_at` so that retention drops a whole week at once
 * instead of updating rows (docs/retention.md). The migration creates the first partitions and
 * webhook-ingest's retention worker the later ones, both by this rule.
 *
 * Why weeks: dropping a partition removes its files, and a month of a busy ledger's payloads
 * (hundreds of MB) took a core for tens of milliseconds per drop beside the deliveries; a week
 * is a quarter of that, and a payload is kept at most a week past its policy. Days would make
 * each drop smaller still, at thirty-odd partitions where a week keeps five.
 */

/** The partitioned table (in the public schema, beside inbound_events). */
export const PAYLOAD_TABLE = 'inbound_event_payloads';

/**
 * The schema of its partitions, apart from the tables the application names: the system role
 * may create tables here (it creates each week's partition) and nowhere else, so nothing it
 * creates can shadow a name the application resolves through its search path (public).
 */
export const PAYLOAD_PARTITION_SCHEMA = 'inbound_event_payload_partitions';

/**
 * Partitions kept ahead of the current week: the worker creates them a round at a time (every
 * few minutes), so a delivery finds its week's partition even after the worker has not run for
 * weeks.
 */
export const PAYLOAD_WEEKS_AHEAD = 8;

/** One week's partition: its table name and its bounds (Monday to Monday, UTC). */
export interface PayloadWeek {
  /** `inbound_event_payloads_YYYY_MM_DD` (its Monday), in PAYLOAD_PARTITION_SCHEMA. */
  name: string;
  /** Inclusive lower bound: the first instant of the week's Monday, UTC. */
  from: Date;
  /** Exclusive upper bound: the first instant of the next Monday, UTC. */
  to: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The week of the Monday at `monday` (a UTC midnight). */
function weekFrom(monday: Date): PayloadWeek {
  const y = monday.getUTCFullYear();
  const m = String(monday.getUTCMonth() + 1).padStart(2, '0');
  const d = String(monday.getUTCDate()).padStart(2, '0');
  return {
    name: `${PAYLOAD_TABLE}_${y}_${m}_${d}`,
    from: monday,
    to: new Date(monday.getTime() + 7 * DAY_MS),
  };
}

/** The partition holding `at`, or the one `weeksLater` weeks after it. */
export function payloadWeek(at: Date, weeksLater = 0): PayloadWeek {
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  // getUTCDay: 0 is Sunday; days since the last Monday.
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return weekFrom(new Date(midnight + (weeksLater * 7 - sinceMonday) * DAY_MS));
}

/** The partitions that must exist at `now`: its week and the PAYLOAD_WEEKS_AHEAD after it. */
export function payloadWeeksAt(now: Date, weeksAhead = PAYLOAD_WEEKS_AHEAD): PayloadWeek[] {
  return Array.from({ length: weeksAhead + 1 }, (_, k) => payloadWeek(now, k));
}

const NAME = new RegExp(`^${PAYLOAD_TABLE}_(\\d{4})_(\\d{2})_(\\d{2})$`);

/** The week a partition's table name says, or undefined for a name not of this rule. */
export function payloadWeekNamed(name: string): PayloadWeek | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  const monday = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  const week = weekFrom(monday);
  // Only a real Monday, written as this rule writes it.
  return monday.getUTCDay() === 1 && week.name === name ? week : undefined;
}
