import { PREPARED, type Trx } from '@crm/shared/db';
import { sql, type RawBuilder } from 'kysely';
import type { TimelinePosition, TimelineRecordKind, TimelineType } from './timeline.schema';

/** One timeline row as read: the item and its exact sort position. */
export interface TimelineRow {
  type: TimelineType;
  id: string;
  occurred_at: Date;
  /** occurred_at to the microsecond, UTC, as text: what a cursor carries. */
  position: string;
  summary: string;
  data: Record<string, unknown>;
}

type Sql = RawBuilder<unknown>;

/**
 * The rows after `after` for one source of type `type`, whose time is `time` and id `id`. The
 * timeline's order is (time, type, id) descending; within one source the type is fixed, so the
 * position splits into a condition on (time, id) an index on (…, time, id) can start from.
 */
function afterFor(type: TimelineType, after: TimelinePosition | undefined) {
  return (time: Sql, id: Sql): Sql => {
    if (!after) return sql`true`;
    const at = sql`${after.at}::timestamptz`;
    if (type === after.type) return sql`(${time}, ${id}) < (${at}, ${after.id}::uuid)`;
    // Same time: a type sorting below the cursor's comes after it (descending), one above before.
    return type < after.type ? sql`${time} <= ${at}` : sql`${time} < ${at}`;
  };
}

interface Scope {
  tenantId: string;
  recordId: string;
  kind: TimelineRecordKind;
  /** Rows per source: the page's limit plus one, to know whether a next page exists. */
  take: number;
  after: TimelinePosition | undefined;
  /** The item types read; every one when undefined. */
  types: readonly TimelineType[] | undefined;
}

/**
 * A source's rows, newest first, at most `take`, as (type, id, t, summary, data); undefined
 * when its type is not read, so the statement leaves the source out and a page and its cursor
 * only ever see the types read.
 */
function sourceOf(
  type: TimelineType,
  s: Scope,
  body: (after: ReturnType<typeof afterFor>) => Sql,
): Sql | undefined {
  if (s.types && !s.types.includes(type)) return undefined;
  return sql`(${body(afterFor(type, s.after))} LIMIT ${s.take})`;
}

/** No rows, in a source's columns: the union when no type is read. */
const NO_SOURCE = sql`(SELECT NULL::text AS type, NULL::uuid AS id, NULL::timestamptz AS t,
  NULL::text AS summary, NULL::jsonb AS data WHERE false)`;

/**
 * The events of one email table (opens, clicks or replies) of the record's messages: each
 * message's newest events from its (tenant_id, message_id, time, id) index, then the newest of
 * those.
 */
function emailEvents(
  s: Scope,
  type: TimelineType,
  table: string,
  summary: Sql,
  data: Sql,
  link: Sql,
): Sql | undefined {
  const t = sql.raw('COALESCE(e.occurred_at, e.created_at)');
  return sourceOf(
    type,
    s,
    (after) => sql`SELECT ${type}::text AS type, e.id, e.t, ${summary} AS summary, ${data} AS data
      FROM email_messages m
      CROSS JOIN LATERAL (
        SELECT e.*, ${t} AS t FROM ${sql.table(table)} e
        WHERE e.tenant_id = ${s.tenantId} AND e.message_id = m.id
          AND ${after(t, sql`e.id`)}
        ORDER BY ${t} DESC, e.id DESC
        LIMIT ${s.take}
      ) e
      WHERE m.tenant_id = ${s.tenantId} AND ${link}
      ORDER BY e.t DESC, e.id DESC`,
  );
}

function sources(s: Scope): Sql[] {
  const { tenantId, recordId, kind } = s;
  /** The column of a table that names the record, for tables that have both links. */
  const linkCol = sql.raw(kind === 'lead' ? 'lead_id' : 'contact_id');
  const email = sql`(SELECT email FROM rec)`;
  const phone = sql`(SELECT phone FROM rec)`;
  const messageLink = sql`m.${linkCol} = ${recordId}`;
  const subject = sql`COALESCE(': ' || m.subject, '')`;

  const list: Array<Sql | undefined> = [];
  if (kind === 'lead') {
    // Submissions name the lead they created or matched; a contact has none.
    list.push(
      sourceOf(
        'form_submission',
        s,
        (after) => sql`SELECT 'form_submission'::text AS type, x.id, x.created_at AS t,
          'Submitted form ' || f.name AS summary,
          jsonb_build_object('form_id', f.id, 'form_name', f.name, 'fields', x.payload) AS data
        FROM crm_form_submissions x JOIN crm_web_forms f ON f.id = x.form_id
        WHERE x.tenant_id = ${tenantId} AND x.lead_id = ${recordId}
          AND ${after(sql`x.created_at`, sql`x.id`)}
        ORDER BY x.created_at DESC, x.id DESC`,
      ),
    );
  }
  list.push(
    sourceOf(
      'deal',
      s,
      (after) => sql`SELECT 'deal'::text AS type, x.id, x.created_at AS t,
        'Deal created: ' || x.title AS summary,
        jsonb_build_object('title', x.title, 'stage', x.stage, 'value', x.value::text,
          'currency', x.currency) AS data
      FROM crm_deals x
      WHERE x.tenant_id = ${tenantId} AND x.${linkCol} = ${recordId}
        AND ${after(sql`x.created_at`, sql`x.id`)}
      ORDER BY x.created_at DESC, x.id DESC`,
    ),
    sourceOf(
      'activity',
      s,
      (after) => sql`SELECT 'activity'::text AS type, x.id, x.occurred_at AS t,
        initcap(x.type) || COALESCE(': ' || x.subject, '') AS summary,
        jsonb_build_object('activity_type', x.type, 'subject', x.subject, 'deal_id', x.deal_id)
          AS data
      FROM crm_activities x
      WHERE x.tenant_id = ${tenantId} AND x.${linkCol} = ${recordId}
        AND ${after(sql`x.occurred_at`, sql`x.id`)}
      ORDER BY x.occurred_at DESC, x.id DESC`,
    ),
    sourceOf(
      'email_sent',
      s,
      (after) => sql`SELECT 'email_sent'::text AS type, m.id, m.sent_at AS t,
        'Email sent' || ${subject} AS summary,
        jsonb_build_object('subject', m.subject, 'to_email', m.to_email) AS data
      FROM email_messages m
      WHERE m.tenant_id = ${tenantId} AND ${messageLink}
        AND ${after(sql`m.sent_at`, sql`m.id`)}
      ORDER BY m.sent_at DESC, m.id DESC`,
    ),
    emailEvents(
      s,
      'email_open',
      'email_opens',
      sql`'Opened email' || ${subject}`,
      sql`jsonb_build_object('message_id', m.id, 'subject', m.subject)`,
      messageLink,
    ),
    emailEvents(
      s,
      'email_click',
      'email_clicks',
      sql`'Clicked ' || e.target_url`,
      sql`jsonb_build_object('message_id', m.id, 'subject', m.subject, 'target_url', e.target_url)`,
      messageLink,
    ),
    emailEvents(
      s,
      'email_reply',
      'email_replies',
      sql`'Replied to email' || ${subject}`,
      sql`jsonb_build_object('message_id', m.id, 'subject', m.subject, 'snippet', e.snippet)`,
      messageLink,
    ),
  );

  // Conversations: a contact's by the link the conversation keeps; a lead's by its email.
  const conversationLink =
    kind === 'contact' ? sql`d.contact_id = ${recordId}` : sql`d.contact_email = ${email}`;
  const chatTime = sql.raw('COALESCE(c.sent_at, c.created_at)');
  list.push(
    sourceOf(
      'chat_message',
      s,
      (after) => sql`SELECT 'chat_message'::text AS type, c.id, c.t,
        CASE c.direction WHEN 'inbound' THEN 'Message received' ELSE 'Message sent' END
          || COALESCE(': ' || left(c.body, 140), '') AS summary,
        jsonb_build_object('conversation_id', d.conversation_id, 'direction', c.direction,
          'message_type', c.message_type, 'body', c.body) AS data
      FROM chat_conversation_details d
      CROSS JOIN LATERAL (
        SELECT c.*, ${chatTime} AS t FROM chat_messages c
        WHERE c.tenant_id = ${tenantId} AND c.conversation_id = d.conversation_id
          AND ${after(chatTime, sql`c.id`)}
        ORDER BY ${chatTime} DESC, c.id DESC
        LIMIT ${s.take}
      ) c
      WHERE d.tenant_id = ${tenantId} AND ${conversationLink}
      ORDER BY c.t DESC, c.id DESC`,
    ),
  );

  // Calls by the record's phone (E.164, see rec): from it, then to it (not also from it).
  const call = (where: Sql) =>
    sourceOf(
      'call',
      s,
      (after) => sql`SELECT 'call'::text AS type, x.id, x.created_at AS t,
        'Call' || COALESCE(' (' || x.direction || ')', '') || ': ' || x.status AS summary,
        jsonb_build_object('direction', x.direction, 'from_number', x.from_number,
          'to_number', x.to_number, 'status', x.status,
          'duration_seconds', x.duration_seconds) AS data
      FROM call_logs x
      WHERE x.tenant_id = ${tenantId} AND ${where}
        AND ${after(sql`x.created_at`, sql`x.id`)}
      ORDER BY x.created_at DESC, x.id DESC`,
    );
  list.push(
    call(sql`x.from_number = ${phone}`),
    call(sql`x.to_number = ${phone} AND x.from_number IS DISTINCT FROM ${phone}`),
  );

  // Orders and payments: a contact's by the contact they were linked to when received; a
  // lead's by its email (they have no lead link).
  const commerceLink =
    kind === 'contact' ? sql`x.contact_id = ${recordId}` : sql`x.email = ${email}`;
  list.push(
    sourceOf(
      'order',
      s,
      (after) => sql`SELECT 'order'::text AS type, x.id, x.created_at AS t,
        'Order ' || COALESCE(x.order_number, x.external_order_id)
          || COALESCE(' (' || x.status || ')', '') AS summary,
        jsonb_build_object('order_number', x.order_number, 'total', x.total::text,
          'currency', x.currency, 'status', x.status) AS data
      FROM commerce_orders x
      WHERE x.tenant_id = ${tenantId} AND ${commerceLink}
        AND ${after(sql`x.created_at`, sql`x.id`)}
      ORDER BY x.created_at DESC, x.id DESC`,
    ),
    sourceOf(
      'payment',
      s,
      (after) => sql`SELECT 'payment'::text AS type, x.id, x.created_at AS t,
        CASE x.kind WHEN 'payment.succeeded' THEN 'Payment succeeded'
          WHEN 'payment.failed' THEN 'Payment failed' ELSE 'Payment refunded' END
          || COALESCE(': ' || x.amount::text || COALESCE(' ' || x.currency, ''), '') AS summary,
        jsonb_build_object('kind', x.kind, 'provider', x.provider, 'amount', x.amount::text,
          'currency', x.currency) AS data
      FROM payment_events x
      WHERE x.tenant_id = ${tenantId} AND ${commerceLink}
        AND ${after(sql`x.created_at`, sql`x.id`)}
      ORDER BY x.created_at DESC, x.id DESC`,
    ),
  );
  const read = list.filter((source): source is Sql => source !== undefined);
  return read.length > 0 ? read : [NO_SOURCE];
}

/**
 * One page of a lead's or contact's timeline, newest first, in one statement: the record (its
 * email, and its phone when that is an E.164 number once spaces, dots, dashes and brackets are
 * dropped), then each source's next `limit + 1` rows from its index, merged and cut to
 * `limit + 1`. `types` narrows the items to those types (every one when undefined), in the
 * statement itself, so a page still holds `limit` items when there are more. Undefined when the
 * record is not the tenant's.
 */
export async function readTimeline(
  trx: Trx,
  tenantId: string,
  kind: TimelineRecordKind,
  recordId: string,
  limit: number,
  after: TimelinePosition | undefined,
  types?: readonly TimelineType[],
): Promise<TimelineRow[] | undefined> {
  const scope: Scope = { tenantId, recordId, kind, take: limit + 1, after, types };
  const table = sql.table(kind === 'lead' ? 'crm_leads' : 'crm_contacts');
  const digits = sql`regexp_replace(r.phone, '[\\s().-]', '', 'g')`;
  // Prepared: its text takes one form per record kind, cursor type and types read, and parsing and planning
  // it cost several times what running it does.
  const { rows } = await sql<TimelineRow & { record_id: string }>`${PREPARED}
    WITH rec AS (
      SELECT r.id, r.email,
        CASE WHEN ${digits} ~ '^\\+[1-9][0-9]{6,14}$' THEN ${digits} END AS phone
      FROM ${table} r WHERE r.tenant_id = ${tenantId} AND r.id = ${recordId}
    )
    SELECT rec.id AS record_id, i.type, i.id, i.t AS occurred_at,
      to_char(i.t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position,
      i.summary, i.data
    FROM rec LEFT JOIN LATERAL (
      SELECT * FROM (${sql.join(sources(scope), sql` UNION ALL `)}) u
      ORDER BY u.t DESC, u.type COLLATE "C" DESC, u.id DESC
      LIMIT ${scope.take}
    ) i ON true
    ORDER BY i.t DESC, i.type COLLATE "C" DESC, i.id DESC`.execute(trx);
  if (rows.length === 0) return undefined;
  return rows
    .filter((row) => row.id !== null)
    .map(({ record_id: _record, ...row }) => row as TimelineRow);
}
