import { z } from 'zod';

/** An inbound customer message, as stored in `chat_messages`. */
export interface InboundMessage {
  externalId: string;
  /** The customer's wa_id: the conversation's external id. */
  from: string;
  type: string | null;
  /** The text of a `text` message; other types keep their content in `payload`. */
  body: string | null;
  sentAt: Date | null;
  payload: Record<string, unknown>;
}

/** A delivery status of a message we sent (sent, delivered, read, failed, ...). */
export interface StatusUpdate {
  externalId: string;
  status: string;
  recipientId: string;
  at: Date | null;
  payload: Record<string, unknown>;
}

/** One `changes[]` item of field `messages`: everything one business number received. */
export interface MessagingChange {
  phoneNumberId: string;
  /** wa_id -> profile name, from `contacts[]`. */
  contactNames: Map<string, string>;
  messages: InboundMessage[];
  statuses: StatusUpdate[];
  /** Items of this change we could not read (skipped, counted in the ledger detail). */
  skipped: number;
}

const id = z.string().trim().min(1).max(200);
const unixSeconds = z.union([z.string(), z.number()]).optional();

const changeSchema = z.object({
  field: z.literal('messages'),
  value: z.object({
    metadata: z.object({ phone_number_id: id }),
    contacts: z.array(z.unknown()).optional(),
    messages: z.array(z.unknown()).optional(),
    statuses: z.array(z.unknown()).optional(),
  }),
});
const contactSchema = z.object({ wa_id: id, profile: z.object({ name: z.string().max(500) }) });
const messageSchema = z.object({
  id,
  from: id,
  timestamp: unixSeconds,
  type: z.string().max(100).optional(),
  text: z.object({ body: z.string() }).optional(),
});
const statusSchema = z.object({
  id,
  status: z.string().trim().min(1).max(100),
  recipient_id: id,
  timestamp: unixSeconds,
});

/**
 * The changes of a verified cloud-API delivery that we store (`field: 'messages'`). Anything
 * else (another `object`, other fields, unreadable items) is left out: the provider is
 * answered 200 and does not retry what we would never understand.
 */
export function readChanges(body: unknown): MessagingChange[] {
  const envelope = z
    .object({ object: z.literal('whatsapp_business_account'), entry: z.array(z.unknown()) })
    .safeParse(body);
  if (!envelope.success) return [];
  const changes: MessagingChange[] = [];
  for (const entry of envelope.data.entry) {
    const entryChanges = z.object({ changes: z.array(z.unknown()) }).safeParse(entry);
    if (!entryChanges.success) continue;
    for (const change of entryChanges.data.changes) {
      const parsed = changeSchema.safeParse(change);
      if (parsed.success) changes.push(readChange(parsed.data.value));
    }
  }
  return changes;
}

function readChange(value: z.infer<typeof changeSchema>['value']): MessagingChange {
  const change: MessagingChange = {
    phoneNumberId: value.metadata.phone_number_id,
    contactNames: new Map(),
    messages: [],
    statuses: [],
    skipped: 0,
  };
  for (const item of value.contacts ?? []) {
    const contact = contactSchema.safeParse(item);
    if (contact.success) change.contactNames.set(contact.data.wa_id, contact.data.profile.name);
  }
  for (const item of value.messages ?? []) {
    const message = messageSchema.safeParse(item);
    if (!message.success) {
      change.skipped++;
      continue;
    }
    change.messages.push({
      externalId: message.data.id,
      from: message.data.from,
      type: message.data.type ?? null,
      body: message.data.type === 'text' ? (message.data.text?.body ?? null) : null,
      sentAt: fromUnixSeconds(message.data.timestamp),
      payload: item as Record<string, unknown>,
    });
  }
  for (const item of value.statuses ?? []) {
    const status = statusSchema.safeParse(item);
    if (!status.success) {
      change.skipped++;
      continue;
    }
    change.statuses.push({
      externalId: status.data.id,
      status: status.data.status,
      recipientId: status.data.recipient_id,
      at: fromUnixSeconds(status.data.timestamp),
      payload: item as Record<string, unknown>,
    });
  }
  return change;
}

/** Meta sends unix seconds as a decimal string; anything else is an unknown time (null). */
function fromUnixSeconds(value: string | number | undefined): Date | null {
  const text = typeof value === 'number' ? String(value) : value;
  if (!text || !/^\d{1,12}$/.test(text)) return null;
  return new Date(Number(text) * 1000);
}
