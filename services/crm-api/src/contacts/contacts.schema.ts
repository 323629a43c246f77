import { contactFilterFields, type ContactColumn } from '@crm/records';
import { z } from 'zod';

/**
 * The contact's own schemas and rules are in @crm/records; these are the HTTP edge's. Each sort
 * column has its (tenant_id, column, id) index.
 */
export const CONTACT_SORTABLE = [
  'created_at',
  'email',
  'last_name',
] as const satisfies readonly ContactColumn[];
export const contactFiltersSchema = z.object(contactFilterFields);
/** A contact id in a path; anything else is answered as an unknown contact. */
export const contactIdSchema = z.uuid();
