import { CONTACT_SORT_KEYS, contactFilterFields, type ContactSortKey } from '@crm/records';
import { z } from 'zod';

/**
 * The contact's own schemas and rules are in @crm/records; these are the HTTP edge's. Each sort
 * column has its (tenant_id, column, id) index.
 */
export const CONTACT_SORTABLE = Object.keys(CONTACT_SORT_KEYS) as [
  ContactSortKey,
  ...ContactSortKey[],
];
export const contactFiltersSchema = z.object(contactFilterFields);
/** A contact id in a path; anything else is answered as an unknown contact. */
export const contactIdSchema = z.uuid();
