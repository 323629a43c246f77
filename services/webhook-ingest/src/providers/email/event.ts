import { z } from 'zod';
import { unprocessable, storableTimestamp } from '@crm/shared/inbound';

/** The email event types stored, and those acknowledged but not stored (specified). */
export const STORED_EMAIL_TYPES = ['email.opened', 'email.clicked', 'email.replied'] as const;
export const ACKNOWLEDGED_EMAIL_TYPES = [
  'email.delivered',
  'email.bounced',
  'email.complained',
] as const;

type StoredType = (typeof STORED_EMAIL_TYPES)[number];
type AcknowledgedType = (typeof ACKNOWLEDGED_EMAIL_TYPES)[number];

/** Columns every email activity table has. */
export interface ActivityColumns {
  user_agent: string | null;
  ip_address: string | null;
  occurred_at: Date | null;
  /** The provider's source object for the activity, as sent (jsonb input text). */
  metadata: string;
}

export type EmailActivity =
  | { type: 'email.opened'; columns: ActivityColumns }
  | { type: 'email.clicked'; columns: ActivityColumns & { target_url: string } }
  | {
      type: 'email.replied';
      columns: ActivityColumns & { snippet: string | null; from_email: string | null };
    };

export type EmailEvent =
  | { kind: 'activity'; type: StoredType; providerMessageId: string; activity: EmailActivity }
  | { kind: 'acknowledged'; type: AcknowledgedType; providerMessageId: string }
  /** A type this receiver does not handle (the provider has more than email events). */
  | { kind: 'unsupported'; type: string };

/** Resend-style envelope: `{ type, created_at, data: { email_id, ... } }`. */
const envelopeSchema = z.looseObject({
  type: z.string().trim().min(1).max(200),
  created_at: z.unknown().optional(),
  data: z.unknown().optional(),
});
const messageDataSchema = z.looseObject({ email_id: z.string().trim().min(1).max(500) });

/**
 * Reads a verified body. A body without a `type`, or an email event without `data.email_id`
 * (or a click without its link), is a 400: nothing is stored. Types other than the six email
 * events are `unsupported` (acknowledged, not stored) whatever their data. `body` comes from
 * parseJsonBody, so its strings and keys are already storable and its depth bounded.
 */
export function parseEmailEvent(body: unknown): EmailEvent {
  const envelope = check(envelopeSchema, body, 'The body must be { type, created_at, data }');
  const type = envelope.type;
  const isStored = (STORED_EMAIL_TYPES as readonly string[]).includes(type);
  const isAcknowledged = (ACKNOWLEDGED_EMAIL_TYPES as readonly string[]).includes(type);
  if (!isStored && !isAcknowledged) return { kind: 'unsupported', type };

  const data = check(messageDataSchema, envelope.data, '`data.email_id` is required');
  const providerMessageId = data.email_id;
  if (isAcknowledged) {
    return { kind: 'acknowledged', type: type as AcknowledgedType, providerMessageId };
  }
  return {
    kind: 'activity',
    type: type as StoredType,
    providerMessageId,
    activity: activityOf(type as StoredType, data, envelope.created_at),
  };
}

function activityOf(
  type: StoredType,
  data: Record<string, unknown>,
  createdAt: unknown,
): EmailActivity {
  // Resend nests an open's or click's details (`data.open`, `data.click`); a flat `data` works too.
  const nested = type === 'email.opened' ? data.open : type === 'email.clicked' ? data.click : null;
  const source = isObject(nested) ? nested : data;
  const columns: ActivityColumns = {
    user_agent: text(source.userAgent, source.user_agent, data.user_agent),
    ip_address: text(source.ipAddress, source.ip_address, source.ip, data.ip_address),
    occurred_at: storableTimestamp(
      firstString(source.timestamp, source.received_at, createdAt) ?? null,
    ),
    metadata: JSON.stringify(source),
  };
  if (type === 'email.opened') return { type, columns };
  if (type === 'email.clicked') {
    const targetUrl = text(source.link, data.link);
    if (!targetUrl) throw unprocessable('`data.click.link` (or `data.link`) is required');
    return { type, columns: { ...columns, target_url: targetUrl } };
  }
  return {
    type,
    columns: {
      ...columns,
      snippet: text(data.subject),
      from_email: addressOf(text(data.from_email, data.from)),
    },
  };
}

function check<T>(schema: z.ZodType<T>, value: unknown, message: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw unprocessable(message, {
    issues: parsed.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.'),
      message: issue.message,
    })),
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === 'string' && value.trim() !== '');
}

/** The first non-empty string among `values`, trimmed, or null. */
function text(...values: unknown[]): string | null {
  const value = firstString(...values);
  return value === undefined ? null : value.trim();
}

/** `Ann <ann@example.com>` -> `ann@example.com`; a bare address is kept as sent. */
function addressOf(from: string | null): string | null {
  if (from === null) return null;
  const bracketed = /<([^<>\s]+@[^<>\s]+)>/.exec(from);
  return bracketed ? bracketed[1] : from;
}
