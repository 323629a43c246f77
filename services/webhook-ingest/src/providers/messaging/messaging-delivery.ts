import {
  findMessageByExternalId,
  insertMessage,
  messageReceivedEvent,
  messageStatusUpdatedEvent,
  setMessageStatus,
  statusAdvances,
  upsertChannelConversation,
} from '@crm/records';
import type { Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import type { DeliveryScope, Outcome } from '../../ledger/record-delivery';
import { findMessagingAccount } from '../../tenancy/cross-tenant-lookups';
import { proveClaim } from '../../tenancy/identifier-proofs';
import { claimedIdentifiers } from '../../tenancy/identifier-proofs.repository';
import type { MessagingChange, StatusUpdate } from './messaging-payload';

const CHANNEL = 'messaging';

interface Tally {
  inserted: number;
  duplicates: number;
  statusesApplied: number;
  statusesUnchanged: number;
  unmatched: number;
  held: number;
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
 *
 * Only a proven claim on a phone_number_id is routed. A change for a number claimed but not
 * proven is held: stored nowhere, counted in the ledger row, which then has no tenant. A
 * delivery sent to a claim's verification URL (`proofToken`) proves that claim first when it is
 * about the claim's number.
 */
export async function handleMessagingDelivery(
  scope: DeliveryScope,
  changes: MessagingChange[],
  proofToken?: string,
): Promise<Outcome> {
  if (changes.length === 0) return { outcome: 'ignored', detail: 'no messages changes' };
  const tally: Tally = {
    inserted: 0,
    duplicates: 0,
    statusesApplied: 0,
    statusesUnchanged: 0,
    unmatched: 0,
    held: 0,
    skipped: 0,
  };
  // Every change is routed before any is stored, so the delivery's tenants are known first.
  const routed: Array<{ account: Account; change: MessagingChange }> = [];
  for (const change of changes) {
    tally.skipped += change.skipped;
    const account = await routedAccount(scope, change.phoneNumberId, proofToken);
    if (account) {
      routed.push({ account, change });
      continue;
    }
    const claimed = await claimedIdentifiers(scope.trx, 'messaging_accounts', [
      change.phoneNumberId,
    ]);
    if (claimed.size > 0) tally.held++;
    else tally.unmatched++;
  }
  const tenants = new Set(routed.map(({ account }) => account.tenantId));
  scope.routeTo(tenants);
  for (const { account, change } of routed) {
    await scope.asTenant(account.tenantId, (trx) => storeChange(trx, account, change, tally));
  }
  const detail =
    `messages ${tally.inserted} inserted, ${tally.duplicates} duplicate; ` +
    `statuses ${tally.statusesApplied} applied, ${tally.statusesUnchanged} unchanged; ` +
    `${tally.unmatched} unmatched changes, ` +
    (tally.held > 0 ? `${tally.held} held changes, ` : '') +
    `${tally.skipped} unreadable items`;
  if (tenants.size === 0) return { outcome: tally.held > 0 ? 'held' : 'unmatched', detail };
  return {
    outcome: 'processed',
    tenantId: tenants.size === 1 ? [...tenants][0] : null,
    detail,
  };
}

/** The proven account of the number, after proving the claim `proofToken` names, if any. */
async function routedAccount(
  scope: DeliveryScope,
  phoneNumberId: string,
  proofToken: string | undefined,
): Promise<Account | undefined> {
  if (proofToken) await proveClaim(scope.trx, 'messaging_accounts', [phoneNumberId], proofToken);
  return findMessagingAccount(scope.trx, phoneNumberId);
}

/**
 * The conversation with one customer (wa_id) on a business number, created on first contact.
 * A name from `contacts[]` replaces the stored one; the last message time only moves forward.
 */
function upsertConversation(
  trx: Trx,
  account: Account,
  externalId: string,
  contactName: string | null,
  lastMessageAt: Date | null,
): Promise<string> {
  return upsertChannelConversation(trx, {
    tenantId: account.tenantId,
    channel: CHANNEL,
    messagingAccountId: account.accountId,
    externalId,
    contactName,
    lastMessageAt,
  });
}

async function storeChange(trx: Trx, account: Account, change: MessagingChange, tally: Tally) {
  for (const message of change.messages) {
    const conversationId = await upsertConversation(
      trx,
      account,
      message.from,
      change.contactNames.get(message.from) ?? null,
      message.sentAt,
    );
    // Inserted once per message id: undefined when it is already stored (a resend).
    const messageId = await insertMessage(trx, {
      tenantId: account.tenantId,
      conversationId,
      externalId: message.externalId,
      direction: 'inbound',
      messageType: message.type,
      body: message.body,
      sentAt: message.sentAt,
      payload: message.payload,
    });
    if (!messageId) {
      tally.duplicates++;
      continue;
    }
    tally.inserted++;
    await writeEvent(
      trx,
      messageReceivedEvent(account.tenantId, messageId, {
        conversation_id: conversationId,
        external_id: message.externalId,
        from: message.from,
        message_type: message.type,
        sent_at: message.sentAt?.toISOString() ?? null,
      }),
    );
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
  // Locked: its status is about to be compared and set.
  let message = await findMessageByExternalId(trx, account.tenantId, update.externalId, {
    forUpdate: true,
  });
  let previous: string | null = null;
  if (message) {
    if (!statusAdvances(message.status, update.status)) return false;
    previous = message.status;
    await setMessageStatus(trx, message.id, update.status);
  } else {
    const conversationId = await upsertConversation(
      trx,
      account,
      update.recipientId,
      contactNames.get(update.recipientId) ?? null,
      update.at,
    );
    // A status for a message we have no row of (sent from outside this CRM): the outbound
    // message is recorded with that status. Its send time is unknown; the status time stands
    // in for it. Undefined when a concurrent delivery stored it first.
    const id = await insertMessage(trx, {
      tenantId: account.tenantId,
      conversationId,
      externalId: update.externalId,
      direction: 'outbound',
      status: update.status,
      sentAt: update.at,
      payload: update.payload,
    });
    if (!id) return false;
    message = { id, conversationId, status: update.status };
  }
  await writeEvent(
    trx,
    messageStatusUpdatedEvent(account.tenantId, message.id, {
      conversation_id: message.conversationId,
      external_id: update.externalId,
      status: update.status,
      previous_status: previous,
    }),
  );
  return true;
}
