import { z } from 'zod';
import { customFields, optionalEmail, optionalText, recordObject } from '../fields';

/** Longest external id, name, company, title or phone a contact may have. */
export const MAX_CONTACT_EXTERNAL_ID = 200;
export const MAX_CONTACT_TEXT = 200;
export const MAX_CONTACT_PHONE = 100;

/**
 * A contact as MCP's ingest_contacts and migrate send one. Matched by `external_id` (the
 * sender's own id) when given, else by email (case-insensitive); email and/or phone required.
 * A field left out keeps the stored value, null or empty clears it, custom_fields are merged
 * key by key.
 */
export const contactInputSchema = recordObject('contact', {
  external_id: optionalText('external_id', MAX_CONTACT_EXTERNAL_ID),
  email: optionalEmail('email'),
  phone: optionalText('phone', MAX_CONTACT_PHONE),
  first_name: optionalText('first_name', MAX_CONTACT_TEXT),
  last_name: optionalText('last_name', MAX_CONTACT_TEXT),
  company: optionalText('company', MAX_CONTACT_TEXT),
  title: optionalText('title', MAX_CONTACT_TEXT),
  custom_fields: customFields(),
}).refine((contact) => Boolean(contact.email || contact.phone), {
  error: 'email or phone is required (a contact is matched by external_id, else by email)',
});
export type ContactInput = z.output<typeof contactInputSchema>;

/** Element of an ingest's `data`: the stored contact and whether this call created it. */
export const contactResultItemSchema = z.object({
  id: z.uuid(),
  external_id: z.string().nullable(),
  email: z.string().nullable(),
  created: z.boolean(),
});
export type ContactResultItem = z.infer<typeof contactResultItemSchema>;

/**
 * A contact as a provider delivers one (storefront customers and buyers): keyed by its email,
 * already lower-cased by the receiver.
 */
export interface ProviderContact {
  email: string;
  firstName: string | null;
  lastName: string | null;
  phone: string | null;
}
