import * as z from 'zod/mini';
import {
  FIELD_NAME_PATTERN,
  FIELD_NAME_RULE,
  FIELD_TYPES,
  HONEYPOT_FIELD,
  MAX_FIELD_OPTIONS,
  MAX_FIELD_TEXT,
  MAX_FORM_FIELDS,
  MAX_FORM_NAME,
  MAX_SLUG,
  SLUG_PATTERN,
  SLUG_RULE,
} from '../../../../../libs/records/src/forms/form-rules';
import type { FormDefinition, WebForm } from '../../api/forms';

/*
 * The form editor's values and their rules: the API's own (the same constants crm-api builds
 * its schemas from, libs/records forms/form-rules.ts), checked before sending. A field's
 * options are typed as one comma-separated line.
 */
const fieldSchema = z
  .object({
    name: z.string().check(z.trim(), z.regex(FIELD_NAME_PATTERN, FIELD_NAME_RULE)),
    label: z
      .string()
      .check(z.trim(), z.maxLength(MAX_FIELD_TEXT, `At most ${MAX_FIELD_TEXT} characters`)),
    type: z.enum(FIELD_TYPES),
    required: z.boolean(),
    options: z.string(),
  })
  .check(
    z.superRefine((field, ctx) => {
      if (field.name === HONEYPOT_FIELD) {
        ctx.addIssue({
          code: 'custom',
          message: `${HONEYPOT_FIELD} is the honeypot's name`,
          path: ['name'],
          input: field.name,
        });
      }
      const options = splitOptions(field.options);
      if (field.type === 'select' && options.length === 0) {
        ctx.addIssue({
          code: 'custom',
          message: 'A select field needs options',
          path: ['options'],
          input: field.options,
        });
      }
      if (
        options.length > MAX_FIELD_OPTIONS ||
        options.some((option) => option.length > MAX_FIELD_TEXT)
      ) {
        ctx.addIssue({
          code: 'custom',
          message: `At most ${MAX_FIELD_OPTIONS} options of up to ${MAX_FIELD_TEXT} characters`,
          path: ['options'],
          input: field.options,
        });
      }
    }),
  );

export const formEditorSchema = z.object({
  name: z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'Give the form a name'),
      z.maxLength(MAX_FORM_NAME, `At most ${MAX_FORM_NAME} characters`),
    ),
  slug: z
    .string()
    .check(
      z.trim(),
      z.maxLength(MAX_SLUG, `At most ${MAX_SLUG} characters`),
      z.regex(SLUG_PATTERN, SLUG_RULE),
    ),
  enabled: z.boolean(),
  fields: z.array(fieldSchema).check(
    z.maxLength(MAX_FORM_FIELDS, `A form has at most ${MAX_FORM_FIELDS} fields`),
    z.superRefine((fields, ctx) => {
      const seen = new Set<string>();
      fields.forEach((field, index) => {
        if (seen.has(field.name)) {
          ctx.addIssue({
            code: 'custom',
            message: `The name ${field.name} is used twice`,
            path: [index, 'name'],
            input: field.name,
          });
        }
        seen.add(field.name);
      });
    }),
  ),
});

export type FormEditorValues = z.input<typeof formEditorSchema>;
export type FieldValues = FormEditorValues['fields'][number];

export const NEW_FIELD: FieldValues = {
  name: '',
  label: '',
  type: 'text',
  required: false,
  options: '',
};

function splitOptions(line: string): string[] {
  return line
    .split(',')
    .map((option) => option.trim())
    .filter(Boolean);
}

/** The editor's values as the API takes them (an empty label left out, options for selects). */
export function toDefinition(values: FormEditorValues): FormDefinition {
  return {
    slug: values.slug.trim(),
    name: values.name.trim(),
    enabled: values.enabled,
    fields: values.fields.map((field) => ({
      name: field.name.trim(),
      ...(field.label.trim() && { label: field.label.trim() }),
      type: field.type,
      required: field.required,
      ...(field.type === 'select' && { options: splitOptions(field.options) }),
    })),
  };
}

/** A stored form as the editor's values. */
export function toEditorValues(form: WebForm): FormEditorValues {
  return {
    slug: form.slug,
    name: form.name,
    enabled: form.enabled,
    fields: form.fields.map((field) => ({
      name: field.name,
      label: field.label ?? '',
      type: field.type,
      required: field.required,
      options: (field.options ?? []).join(', '),
    })),
  };
}
