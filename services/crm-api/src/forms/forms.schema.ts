import {
  FIELD_NAME_PATTERN,
  FIELD_NAME_RULE,
  FIELD_TYPES,
  MAX_FIELD_OPTIONS,
  MAX_FIELD_TEXT,
  MAX_FORM_FIELDS,
  MAX_FORM_NAME,
  MAX_SLUG,
  SLUG_PATTERN,
  SLUG_RULE,
} from '@crm/records';
import { z } from 'zod';

// The rules themselves live in @crm/records (forms/form-rules.ts): the console checks them too.
export {
  FIELD_TYPES,
  HONEYPOT_FIELD,
  MAX_FORM_FIELDS,
  MAX_SUBMITTED_FIELDS,
  SLUG_PATTERN,
  type FieldType,
} from '@crm/records';

export const slugSchema = z
  .string({ message: 'slug is required' })
  .max(MAX_SLUG, { message: `slug must be at most ${MAX_SLUG} characters` })
  .regex(SLUG_PATTERN, { message: SLUG_RULE });

const fieldName = z
  .string({ message: 'field name is required' })
  .regex(FIELD_NAME_PATTERN, { message: FIELD_NAME_RULE });

export const formFieldSchema = z
  .strictObject({
    name: fieldName,
    label: z.string().trim().min(1).max(MAX_FIELD_TEXT).optional(),
    type: z
      .enum(FIELD_TYPES, { message: `field type must be one of: ${FIELD_TYPES.join(', ')}` })
      .default('text'),
    required: z.boolean({ message: 'required must be true or false' }).default(false),
    options: z
      .array(z.string().trim().min(1).max(MAX_FIELD_TEXT))
      .min(1)
      .max(MAX_FIELD_OPTIONS)
      .optional(),
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
  .max(MAX_FORM_NAME, { message: `name must be at most ${MAX_FORM_NAME} characters` });
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
