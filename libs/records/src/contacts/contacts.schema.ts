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
const contactFields = {
  external_id: optionalText('external_id', MAX_CONTACT_EXTERNAL_ID),
  email: optionalEmail('email'),
  phone: optionalText('phone', MAX_CONTACT_PHONE),
  first_name: optionalText('first_name', MAX_CONTACT_TEXT),
  last_name: optionalText('last_name', MAX_CONTACT_TEXT),
  company: optionalText('company', MAX_CONTACT_TEXT),
  title: optionalText('title', MAX_CONTACT_TEXT),
  custom_fields: customFields(),
};

export const contactInputSchema = recordObject('contact', contactFields).refine(
  (contact) => Boolean(contact.email || contact.phone),
  { error: 'email or phone is required (a contact is matched by external_id, else by email)' },
);
export type ContactInput = z.output<typeof contactInputSchema>;

/**
 * A change to one contact (PATCH): the same fields and rules as contactInputSchema, each
 * optional; at least one. The contact must still have an email or a phone afterwards (checked
 * against the stored row by the caller).
 */
export const contactChangeSchema = recordObject('contact', contactFields).refine(
  (change) => Object.keys(change).length > 0,
  { error: 'give at least one field to change' },
);
export type ContactChange = z.output<typeof contactChangeSchema>;

/** `q` of the contact list: text found anywhere in a name, the full name, email, phone or company. */
export const contactFilterFields = {
  q: z
    .string({ error: 'q must be a string of at most 320 characters' })
    .trim()
    .toLowerCase()
    .max(320, { error: 'q must be a string of at most 320 characters' })
    .optional(),
};
export type ContactFilters = { q?: string };

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
