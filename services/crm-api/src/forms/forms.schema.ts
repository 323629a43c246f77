import { z } from 'zod';

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
export const slugSchema = z
  .string({ message: 'slug is required' })
  .max(63, { message: 'slug must be at most 63 characters' })
  .regex(SLUG_PATTERN, {
    message: 'slug must be lower-case letters, digits and single dashes (e.g. contact-us)',
  });

const fieldName = z
  .string({ message: 'field name is required' })
  .regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, {
    message: 'field name must start with a letter and hold only letters, digits and _ (<= 64)',
  });

export const formFieldSchema = z
  .strictObject({
    name: fieldName,
    label: z.string().trim().min(1).max(200).optional(),
    type: z
      .enum(FIELD_TYPES, { message: `field type must be one of: ${FIELD_TYPES.join(', ')}` })
      .default('text'),
    required: z.boolean({ message: 'required must be true or false' }).default(false),
    options: z.array(z.string().trim().min(1).max(200)).min(1).max(100).optional(),
  })
  .refine((f) => f.type !== 'select' || f.options !== undefined, {
    message: 'a select field needs options',
    path: ['options'],
  })
  .refine((f) => f.type === 'select' || f.options === undefined, {
    message: 'options are only for select fields',
    path: ['options'],
  });

export type FormField = z.infer<typeof formFieldSchema>;

export const formFieldsSchema = z
  .array(formFieldSchema, { message: 'fields must be an array' })
  .max(MAX_FORM_FIELDS, { message: `a form has at most ${MAX_FORM_FIELDS} fields` })
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    fields.forEach((field, index) => {
      if (seen.has(field.name)) {
        ctx.addIssue({
          code: 'custom',
          message: `field name ${field.name} is used twice`,
          path: [index, 'name'],
        });
      }
      seen.add(field.name);
    });
  });

const formName = z
  .string({ message: 'name is required' })
  .trim()
  .min(1, { message: 'name is required' })
  .max(200, { message: 'name must be at most 200 characters' });
const enabled = z.boolean({ message: 'enabled must be true or false' });

export const createFormSchema = z.strictObject({
  slug: slugSchema,
  name: formName,
  fields: formFieldsSchema.default([]),
  enabled: enabled.default(true),
});

/** The slug is part of public URLs embedded on other sites, so it does not change. */
export const updateFormSchema = z
  .strictObject({ name: formName, fields: formFieldsSchema, enabled })
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one field to change' });

/** The value of an `email` field other than `email` itself (normalizeLead checks that one). */
export const submittedEmailSchema = z.email();

/** A form id in a path; anything else is answered as an unknown form. */
export const formIdSchema = z.uuid();

export const listFilters = z.object({
  enabled: z
    .enum(['true', 'false'], { message: 'enabled must be true or false' })
    .transform((v) => v === 'true')
    .optional(),
});
export type FormListFilters = z.infer<typeof listFilters>;
export type FormInput = z.infer<typeof createFormSchema>;
export type FormChange = z.infer<typeof updateFormSchema>;
