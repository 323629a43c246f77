/*
 * The rules of a web form's definition as data, with no import: crm-api builds its zod schemas
 * from them (services/crm-api/src/forms/forms.schema.ts) and the console's form editor checks
 * the same rules before sending (it imports this file by path, so nothing of a server reaches
 * its bundle). A rule changes here, once, for both.
 */

/**
 * The honeypot: a field a human never sees (hidden by the form's CSS) and a bot fills in. A
 * submission with a non-empty `_hp` is answered like a stored one and stores nothing.
 */
export const HONEYPOT_FIELD = '_hp';

export const FIELD_TYPES = ['text', 'email', 'tel', 'textarea', 'select', 'checkbox'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Most fields one form may define, and most fields one submission may carry. */
export const MAX_FORM_FIELDS = 50;
export const MAX_SUBMITTED_FIELDS = 100;

/** Same rule as the column's CHECK: lower-case letters and digits, single dashes between. */
export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_SLUG = 63;
export const SLUG_RULE =
  'slug must be lower-case letters, digits and single dashes (e.g. contact-us)';

/** A field's name: the key its value is submitted under. */
export const FIELD_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
export const FIELD_NAME_RULE =
  'field name must start with a letter and hold only letters, digits and _ (<= 64)';

export const MAX_FORM_NAME = 200;
/** A field's label and each of a select's options. */
export const MAX_FIELD_TEXT = 200;
export const MAX_FIELD_OPTIONS = 100;
