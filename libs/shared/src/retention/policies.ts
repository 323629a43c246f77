import { z } from 'zod';

/**
 * One rule of what the platform keeps: which rows of a table go, how long after their time
 * column, and why that long. Every growing table has one; the owning service's sweep enforces
 * it (retention-worker.ts) and its health reports when it falls behind (retention-check.ts).
 * docs/retention.md is this table for operators.
 */
export interface RetentionPolicy {
  /** How logs, health and the docs name the rule, e.g. `inbound_event_payloads`. */
  name: string;
  /** What the rule removes. */
  removes: string;
  /** What is kept, and why for that long. */
  why: string;
  /** The environment variable that overrides the default, read by the owning service. */
  variable: string;
  /** The default, in `unit`s. */
  defaultValue: number;
  unit: 'days' | 'minutes';
  /** The least value allowed, when a shorter one would break what the rows are kept for. */
  minimum?: number;
}

const DAY_MS = 24 * 60 * 60_000;
const MINUTE_MS = 60_000;

/**
 * The platform's retention rules, defaults a small deployment never touches. The order is the
 * docs' order.
 */
export const RETENTION_POLICIES = {
  publishedEvents: {
    name: 'event_outbox (published)',
    removes: 'outbox rows the relay has published, by published_at',
    why:
      'once on the stream the row is only an audit copy; an unpublished row is never removed, ' +
      'whatever its age, so no event is lost while NATS is down',
    variable: 'RETENTION_PUBLISHED_EVENTS_DAYS',
    defaultValue: 7,
    unit: 'days',
  },
  ledgerPayloads: {
    name: 'inbound_event_payloads',
    removes:
      "ledger rows' payloads (raw body and headers; the rows stay), by received_at, a week at " +
      'a time: a week of inbound_event_payloads goes once its last day is past the period, so ' +
      'a payload is kept up to a week longer (one recorded in its ledger row before that ' +
      'table: nulled)',
    why:
      'the payload is for the audit view and re-processing a failed delivery, and is the bulk ' +
      'of the ledger; after it goes the delivery can no longer be re-processed',
    variable: 'RETENTION_LEDGER_PAYLOADS_DAYS',
    defaultValue: 30,
    unit: 'days',
  },
  ledgerRows: {
    name: 'inbound_events',
    removes: 'ledger rows (outcome and dedup key), by received_at',
    why:
      'the (provider, delivery id) key refuses a provider re-sending a delivery already ' +
      "recorded; it must outlive every provider's retry horizon (days, at most weeks) and the " +
      "payload's retention",
    variable: 'RETENTION_LEDGER_DAYS',
    defaultValue: 90,
    unit: 'days',
  },
  providerEvents: {
    name: 'network_events, email_opens, email_clicks',
    removes: 'provider activity events, by created_at',
    why: "a year of a record's activity on its timeline; older activity is history nobody reads",
    variable: 'RETENTION_PROVIDER_EVENTS_DAYS',
    defaultValue: 365,
    unit: 'days',
  },
  workflowRuns: {
    name: 'workflow_runs, workflow_run_steps',
    removes:
      'workflow runs and their steps, by started_at (a run is kept while a replay of it is; ' +
      'a replay goes with the run it replays)',
    why: 'a year of run history to audit and replay from',
    variable: 'RETENTION_WORKFLOW_RUNS_DAYS',
    defaultValue: 365,
    unit: 'days',
  },
  expiredSessions: {
    name: 'sessions',
    removes: 'sessions past their expires_at',
    why: 'an expired session is refused anyway; the row is dead weight',
    variable: 'RETENTION_EXPIRED_SESSIONS_MINUTES',
    defaultValue: 0,
    unit: 'minutes',
  },
  rateLimitCounters: {
    name: 'rate_limits',
    removes: 'rate-limit counters whose window has ended, by expire',
    why: 'a key seen again simply starts a new window',
    variable: 'RETENTION_RATE_LIMIT_COUNTERS_MINUTES',
    defaultValue: 0,
    unit: 'minutes',
  },
  expiredOAuth: {
    name: 'oauth_authorization_requests, oauth_codes, oauth_tokens',
    removes: 'OAuth authorization requests, codes and tokens past their expires_at',
    why:
      'an expired request, code or token is refused anyway; kept a day so a used code or ' +
      'refresh token presented again just after it expired is still recognised as a replay ' +
      'and revokes its grant',
    variable: 'RETENTION_EXPIRED_OAUTH_MINUTES',
    defaultValue: 1440,
    unit: 'minutes',
  },
  unusedOAuthClients: {
    name: 'oauth_clients (unused)',
    removes:
      'OAuth clients (registered, or cached Client ID Metadata Documents) that have no grant ' +
      'and no pending authorization request, by created_at',
    why:
      'registration is open (limited per IP), so clients nobody connected would pile up; a ' +
      'client with a grant (revoked included) stays with it, and a metadata document is ' +
      'fetched again when next used',
    variable: 'RETENTION_UNUSED_OAUTH_CLIENTS_DAYS',
    defaultValue: 30,
    unit: 'days',
  },
  migrateNonces: {
    name: 'migrate_nonces',
    removes: 'migrate request nonces, by seen_at, past twice the signature skew window',
    why:
      'a nonce only refuses a replay while its signed timestamp is inside the 5-minute skew ' +
      'window; 10 minutes later no signature carrying it is accepted anyway',
    variable: 'RETENTION_MIGRATE_NONCES_MINUTES',
    defaultValue: 10,
    unit: 'minutes',
    minimum: 10,
  },
} as const satisfies Record<string, RetentionPolicy>;

export type RetentionPolicyKey = keyof typeof RETENTION_POLICIES;

/** A policy's keep period in ms, from its configured value. */
export function keepMs(policy: RetentionPolicy, value: number): number {
  return value * (policy.unit === 'days' ? DAY_MS : MINUTE_MS);
}

/**
 * The config fields of `keys` (spread into the owning service's config schema), each with its
 * default and its description for docs/configuration.md.
 */
export function retentionVariables<K extends RetentionPolicyKey>(
  ...keys: K[]
): { [P in (typeof RETENTION_POLICIES)[K]['variable']]: z.ZodDefault<z.ZodCoercedNumber> } {
  const fields: Record<string, z.ZodType> = {};
  for (const key of keys) {
    const policy: RetentionPolicy = RETENTION_POLICIES[key];
    const minimum = policy.minimum ?? (policy.unit === 'days' ? 1 : 0);
    fields[policy.variable] = z.coerce
      .number({ message: `expected a whole number of ${policy.unit}` })
      .int({ message: `expected a whole number of ${policy.unit}` })
      .min(minimum, { message: `expected at least ${minimum} ${policy.unit}` })
      .default(policy.defaultValue)
      .describe(
        `Retention in ${policy.unit} (docs/retention.md). Removes ${policy.removes}. ` +
          `Default ${policy.defaultValue}: ${policy.why}.`,
      );
  }
  return fields as never;
}
