/**
 * The email receiver's SQL: an open, click or reply of one of the tenant's sent messages,
 * written under the tenant's row-level security (the delivery's asTenant scope). Finding the
 * message's tenant happens before, in the system scope (tenancy/cross-tenant-lookups.ts).
 */
import type { Trx } from '@crm/shared/db';
import type { EmailActivity } from './event';

/** The message an activity belongs to. */
export interface ActivityOwner {
  tenant_id: string;
  message_id: string;
}

/** One row in the activity's own table (`email_opens`, `email_clicks`, `email_replies`); its id. */
export async function insertEmailActivity(
  trx: Trx,
  owner: ActivityOwner,
  activity: EmailActivity,
): Promise<string> {
  let row: { id: string };
  switch (activity.type) {
    case 'email.opened':
      row = await trx
        .insertInto('email_opens')
        .values({ ...owner, ...activity.columns })
        .returning('id')
        .executeTakeFirstOrThrow();
      break;
    case 'email.clicked':
      row = await trx
        .insertInto('email_clicks')
        .values({ ...owner, ...activity.columns })
        .returning('id')
        .executeTakeFirstOrThrow();
      break;
    case 'email.replied':
      row = await trx
        .insertInto('email_replies')
        .values({ ...owner, ...activity.columns })
        .returning('id')
        .executeTakeFirstOrThrow();
      break;
  }
  return row.id;
}
