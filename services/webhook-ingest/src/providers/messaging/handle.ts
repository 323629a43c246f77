import type { Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import type { DeliveryScope, Outcome } from '../../ledger/record-delivery';
import { findMessagingAccount } from '../../tenancy/cross-tenant-lookups';
import type { MessagingChange, StatusUpdate } from './payload';
import {
  findMessage,
  insertInboundMessage,
  insertOutboundMessage,
  setMessageStatus,
  statusAdvances,
  upsertConversation,
} from './store';

const MODULE = 'chat_messages';

interface Tally {
  inserted: number;
  duplicates: number;
  statusesApplied: number;
  statusesUnchanged: number;
  unmatched: number;
  skipped: number;
}

interface Account {
  tenantId: string;
  accountId: string;
}

/**
 * Stores a verified delivery: each change goes to the tenant owning its phone_number_id.
 * Inbound messages are inserted once per message id (a resend in another delivery is a
 * duplicate row-wise too); statuses update the message they name. One outbox event per
 * stored message or status change. The ledger row names the tenant when exactly one was
 * involved (a delivery spanning tenants is recorded without one, so neither sees the other's).
 */
export async function handleMessagingDelivery(
  scope: DeliveryScope,
  changes: MessagingChange[],
): Promise<Outcome> {
  if (changes.length === 0) return { outcome: 'ignored', detail: 'no messages changes' };
  const tally: Tally = {
    inserted: 0,
    duplicates: 0,
    statusesApplied: 0,
    statusesUnchanged: 0,
    unmatched: 0,
    skipped: 0,
  };
  const tenants = new Set<string>();
  for (const change of changes) {
    tally.skipped += change.skipped;
    const account = await findMessagingAccount(scope.trx, change.phoneNumberId);
    if (!account) {
      tally.unmatched++;
      continue;
    }
    tenants.add(account.tenantId);
    await scope.asTenant(account.tenantId, (trx) => storeChange(trx, account, change, tally));
  }
  const detail =
    `messages ${tally.inserted} inserted, ${tally.duplicates} duplicate; ` +
    `statuses ${tally.statusesApplied} applied, ${tally.statusesUnchanged} unchanged; ` +
    `${tally.unmatched} unmatched changes, ${tally.skipped} unreadable items`;
  if (tenants.size === 0) return { outcome: 'unmatched', detail };
  return {
    outcome: 'processed',
    tenantId: tenants.size === 1 ? [...tenants][0] : null,
    detail,
  };
}

async function storeChange(trx: Trx, account: Account, change: MessagingChange, tally: Tally) {
  for (const message of change.messages) {
    const conversationId = await upsertConversation(trx, {
      ...account,
      externalId: message.from,
      contactName: change.contactNames.get(message.from) ?? null,
      lastMessageAt: message.sentAt,
    });
    const messageId = await insertInboundMessage(trx, account.tenantId, conversationId, message);
    if (!messageId) {
      tally.duplicates++;
      continue;
    }
    tally.inserted++;
    await writeEvent(trx, {
      type: 'message.received',
      tenant_id: account.tenantId,
      record: { module: MODULE, id: messageId },
      data: {
        conversation_id: conversationId,
        external_id: message.externalId,
        from: message.from,
        message_type: message.type,
        sent_at: message.sentAt?.toISOString() ?? null,
      },
    });
  }
  for (const update of change.statuses) {
    const applied = await applyStatus(trx, account, update, change.contactNames);
    if (applied) tally.statusesApplied++;
    else tally.statusesUnchanged++;
  }
}

/** Sets a message's status (or records the outbound message it is about); true if it changed. */
async function applyStatus(
  trx: Trx,
  account: Account,
  update: StatusUpdate,
  contactNames: Map<string, string>,
): Promise<boolean> {
  let message = await findMessage(trx, account.tenantId, update.externalId);
  let previous: string | null = null;
  if (message) {
    if (!statusAdvances(message.status, update.status)) return false;
    previous = message.status;
    await setMessageStatus(trx, message.id, update.status);
  } else {
    const conversationId = await upsertConversation(trx, {
      ...account,
      externalId: update.recipientId,
      contactName: contactNames.get(update.recipientId) ?? null,
      lastMessageAt: update.at,
    });
    const id = await insertOutboundMessage(trx, account.tenantId, conversationId, update);
    if (!id) return false;
    message = { id, conversationId, status: update.status };
  }
  await writeEvent(trx, {
    type: 'message.status_updated',
    tenant_id: account.tenantId,
    record: { module: MODULE, id: message.id },
    data: {
      conversation_id: message.conversationId,
      external_id: update.externalId,
      status: update.status,
      previous_status: previous,
    },
  });
  return true;
}
