import type { Trx } from '@crm/shared/db';
import { parseRecords } from '../fields';
import { ingestResult, type IngestResult, type RecordError } from '../ingest-result';
import { upsertContact } from './contacts.repository';
import { contactInputSchema, type ContactResultItem } from './contacts.schema';

/**
 * A batch of contacts (contactInputSchema) stored in the caller's tenant transaction, each
 * upserted by external id, else by email, with its `contact.created` / `contact.updated`
 * event naming `source`. Refused records come back as `{ index, error }`; records later in the
 * batch win over earlier ones with the same key, as a re-send would.
 */
export async function ingestContacts(
  trx: Trx,
  tenantId: string,
  rows: readonly unknown[],
  options: { source: string },
): Promise<IngestResult<ContactResultItem>> {
  const { valid, errors } = parseRecords(contactInputSchema, rows);
  const data: ContactResultItem[] = [];
  const refused: RecordError[] = [...errors];
  for (const { index, value } of valid) {
    const result = await upsertContact(trx, tenantId, value, options.source);
    if ('error' in result) {
      refused.push({ index, error: result.error });
      continue;
    }
    const { contact, created } = result;
    data.push({ id: contact.id, external_id: contact.external_id, email: contact.email, created });
  }
  return ingestResult(data, refused);
}
