import { sql, type Kysely } from 'kysely';
import {
  PAYLOAD_PARTITION_SCHEMA,
  PAYLOAD_TABLE,
  payloadWeeksAt,
  type PayloadWeek,
} from '../ledger-payload-partitions';
import { SYSTEM_ROLE } from '../roles';

/**
 * The inbound ledger's payloads move out of its rows into `inbound_event_payloads`, a table
 * partitioned by week on `received_at`, so that retention drops a week of payloads at once
 * (detach and drop its partition) instead of updating each row: at tens of millions of ledger
 * rows, nulling `raw_body` rewrote an entry in each of the ledger's five indexes per row and did
 * not keep up (docs/retention.md).
 *
 * - Keyed `(ledger_id, received_at)`: a primary key on a partitioned table must hold the
 *   partition key, and a reader holding a ledger row's id and received_at reads one partition's
 *   index. The ledger's dedup key stays on `inbound_events`, which is not partitioned.
 * - No foreign key to inbound_events: deleting a ledger row would probe every partition, and
 *   the payloads go by week anyway, before their rows do.
 * - No tenant_id and no row-level security: only the system role reads and writes it (it writes
 *   with the ledger's claim; the audit view reads a payload only by the key of a ledger row the
 *   tenant has read under its own row-level security). The tenant role has no grant on it.
 * - Owned by the system role: webhook-ingest's retention worker runs as that role and creates,
 *   attaches, detaches and drops the weekly partitions, which only the owner of the table (and
 *   of each partition) may do.
 * - The partitions live in a schema of their own, where the system role may create tables
 *   (every week's partition) and which the tenant role cannot even name. The system role never
 *   gets CREATE on public: there a table or function it created could shadow a name the
 *   application resolves through its search path; in this schema it can shadow nothing. It holds
 *   CREATE on public only for the moment it takes ownership of the parent (Postgres asks that of
 *   a new owner), as migration 0025 does for its view.
 *
 * Existing payloads stay in inbound_events.raw_body and headers, which the old payload sweep
 * keeps stripping until none is left; new deliveries leave those columns null. This creates the
 * partitions of this week and the next PAYLOAD_WEEKS_AHEAD; the worker keeps them ahead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const system = sql.id(SYSTEM_ROLE);
  const parent = sql.id(PAYLOAD_TABLE);
  await sql`CREATE TABLE ${parent} (
    ledger_id uuid NOT NULL,
    received_at timestamptz NOT NULL,
    raw_body text NOT NULL,
    headers jsonb,
    PRIMARY KEY (ledger_id, received_at)
  ) PARTITION BY RANGE (received_at)`.execute(db);
  await sql`GRANT CREATE ON SCHEMA public TO ${system}`.execute(db);
  await sql`ALTER TABLE ${parent} OWNER TO ${system}`.execute(db);
  await sql`REVOKE CREATE ON SCHEMA public FROM ${system}`.execute(db);

  const schema = sql.id(PAYLOAD_PARTITION_SCHEMA);
  await sql`CREATE SCHEMA ${schema}`.execute(db);
  await sql`GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${system}`.execute(db);
  for (const week of payloadWeeksAt(new Date())) {
    const partition = partitionRef(week);
    await sql`CREATE TABLE ${partition} PARTITION OF ${parent}
      FOR VALUES FROM (${sql.lit(week.from.toISOString())})
      TO (${sql.lit(week.to.toISOString())})`.execute(db);
    await sql`ALTER TABLE ${partition} OWNER TO ${system}`.execute(db);
  }
}

const partitionRef = (week: PayloadWeek) => sql.id(PAYLOAD_PARTITION_SCHEMA, week.name);

/** Puts the payloads still kept back into their ledger rows, then drops the table. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE inbound_events e SET raw_body = p.raw_body, headers = p.headers
    FROM ${sql.id(PAYLOAD_TABLE)} p
   WHERE p.ledger_id = e.id AND p.received_at = e.received_at`.execute(db);
  await sql`DROP TABLE ${sql.id(PAYLOAD_TABLE)}`.execute(db);
  // Partitions the worker left detached (a drop cut short) go with the schema.
  await sql`DROP SCHEMA ${sql.id(PAYLOAD_PARTITION_SCHEMA)} CASCADE`.execute(db);
}
