import type { Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import type { DeliveryScope, Outcome } from '../../ledger/record-delivery';
import { findEmailMessage } from '../../tenancy/cross-tenant-lookups';
import { insertEmailActivity } from './email.repository';
import type { EmailActivity, EmailEvent } from './event';

/** The handler's ledger outcome plus the body the provider gets. */
export type EmailOutcome = Outcome & { response: Record<string, unknown> };

interface OriginalMessage {
  tenantId: string;
  messageId: string;
  providerMessageId: string;
}

/**
 * Specified: finds the original send by its provider message id (its
 * tenant is the event's tenant), then stores an open, click or reply with one outbox event of
 * the same type, or acknowledges the event without storing it. An event about a message we
 * never sent is answered `{ ignored: true }` so the provider does not retry it.
 */
export async function handleEmailEvent(
  scope: DeliveryScope,
  event: EmailEvent,
): Promise<EmailOutcome> {
  const { trx, asTenant } = scope;
  if (event.kind === 'unsupported') {
    return {
      outcome: 'ignored',
      detail: `unsupported event type ${event.type}`,
      response: { received: true, ignored: true },
    };
  }
  const found = await findEmailMessage(trx, event.providerMessageId);
  if (!found) {
    return {
      outcome: 'unmatched',
      detail: 'no email message with this provider message id',
      response: { ignored: true },
    };
  }
  scope.routeTo([found.tenantId]);
  if (event.kind === 'acknowledged') {
    return {
      outcome: 'ignored',
      tenantId: found.tenantId,
      detail: `${event.type} acknowledged, not stored`,
      response: { received: true },
    };
  }
  const message = { ...found, providerMessageId: event.providerMessageId };
  const activityId = await asTenant(found.tenantId, (tenantTrx) =>
    storeActivity(tenantTrx, message, event.activity),
  );
  return {
    outcome: 'processed',
    tenantId: found.tenantId,
    detail: `${event.activity.type} stored as ${activityId}`,
    response: { received: true },
  };
}

/** One row in the activity's table and its outbox event; returns the row id. */
async function storeActivity(
  trx: Trx,
  message: OriginalMessage,
  activity: EmailActivity,
): Promise<string> {
  const rowId = await insertEmailActivity(
    trx,
    { tenant_id: message.tenantId, message_id: message.messageId },
    activity,
  );
  await writeEvent(trx, {
    type: activity.type,
    tenant_id: message.tenantId,
    record: { module: 'email', id: message.messageId },
    data: {
      message_id: message.messageId,
      provider_message_id: message.providerMessageId,
      activity_id: rowId,
      occurred_at: activity.columns.occurred_at?.toISOString() ?? null,
      ...eventFields(activity),
    },
  });
  return rowId;
}

/** What a click's or reply's event carries beyond every activity's fields. */
function eventFields(activity: EmailActivity): Record<string, unknown> {
  switch (activity.type) {
    case 'email.opened':
      return {};
    case 'email.clicked':
      return { target_url: activity.columns.target_url };
    case 'email.replied':
      return { from_email: activity.columns.from_email, snippet: activity.columns.snippet };
  }
}
