/*
 * The months of `inbound_event_payloads` (migration 0031): the inbound ledger's payloads, in a
 * table partitioned by month on `received_at` so that retention drops a whole month at once
 * instead of updating rows (docs/retention.md). The migration creates the first partitions and
 * webhook-ingest's retention worker the later ones, both by this rule.
 */

/** The partitioned table (in the public schema, beside inbound_events). */
export const PAYLOAD_TABLE = 'inbound_event_payloads';

/**
 * The schema of its partitions, apart from the tables the application names: the system role
 * may create tables here (it creates each month's partition) and nowhere else, so nothing it
 * creates can shadow a name the application resolves through its search path (public).
 */
export const PAYLOAD_PARTITION_SCHEMA = 'inbound_event_payload_partitions';

/**
 * Partitions kept ahead of the current month: the worker creates them a round at a time (every
 * few minutes), so a delivery finds its month's partition even after the worker has not run
 * for weeks.
 */
export const PAYLOAD_MONTHS_AHEAD = 3;

/** One month's partition: its table name and its bounds (UTC month boundaries). */
export interface PayloadMonth {
  /** `inbound_event_payloads_YYYY_MM`, in PAYLOAD_PARTITION_SCHEMA. */
  name: string;
  /** Inclusive lower bound: the first instant of the month, UTC. */
  from: Date;
  /** Exclusive upper bound: the first instant of the next month, UTC. */
  to: Date;
}

/** The partition holding `at`, or the one `monthsLater` months after it. */
export function payloadMonth(at: Date, monthsLater = 0): PayloadMonth {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth() + monthsLater;
  const from = new Date(Date.UTC(year, month, 1));
  const to = new Date(Date.UTC(year, month + 1, 1));
  const mm = String(from.getUTCMonth() + 1).padStart(2, '0');
  return { name: `${PAYLOAD_TABLE}_${from.getUTCFullYear()}_${mm}`, from, to };
}

/** The partitions that must exist at `now`: its month and the PAYLOAD_MONTHS_AHEAD after it. */
export function payloadMonthsAt(now: Date, monthsAhead = PAYLOAD_MONTHS_AHEAD): PayloadMonth[] {
  return Array.from({ length: monthsAhead + 1 }, (_, k) => payloadMonth(now, k));
}

const NAME = new RegExp(`^${PAYLOAD_TABLE}_(\\d{4})_(\\d{2})$`);

/** The month a partition's table name says, or undefined for a name not of this rule. */
export function payloadMonthNamed(name: string): PayloadMonth | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  const month = Number(match[2]);
  if (month < 1 || month > 12) return undefined;
  return payloadMonth(new Date(Date.UTC(Number(match[1]), month - 1, 1)));
}
