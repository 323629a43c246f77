import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import * as z from 'zod/mini';
import {
  LEAD_FIELD_ERRORS,
  MAX_LEAD_EMAIL,
  MAX_LEAD_SOURCE,
  MAX_LEAD_TEXT,
} from '../../../../../libs/records/src/leads/lead-rules';
import { LEAD_STATUSES, type Lead, type LeadFields } from '../../api/leads';
import { Field, SelectField } from '../../ui/field';
import { serverFieldError } from '../../ui/server-field-error';

const text = (key: string) =>
  z.string().check(z.trim(), z.maxLength(MAX_LEAD_TEXT, LEAD_FIELD_ERRORS.tooLong(key)));

/**
 * The API's rules for a lead (libs/records lead-rules.ts, the texts the API answers), checked
 * before sending: the email required, a valid address, the texts and the source not too long.
 */
const schema = z.object({
  email: z.pipe(
    z
      .string()
      .check(
        z.trim(),
        z.toLowerCase(),
        z.minLength(1, LEAD_FIELD_ERRORS.emailRequired),
        z.maxLength(MAX_LEAD_EMAIL, LEAD_FIELD_ERRORS.invalidEmail),
      ),
    z.email(LEAD_FIELD_ERRORS.invalidEmail),
  ),
  first_name: text('first_name'),
  last_name: text('last_name'),
  phone: text('phone'),
  status: z.enum(LEAD_STATUSES),
  source: z.string().check(z.trim(), z.maxLength(MAX_LEAD_SOURCE, LEAD_FIELD_ERRORS.sourceTooLong)),
});

const FIELD_NAMES = ['email', 'first_name', 'last_name', 'phone', 'status', 'source'] as const;
const STATUS_OPTIONS = LEAD_STATUSES.map((status) => [status, status] as const);

/**
 * A lead's fields as a form: a new lead (every field sent, empty ones left out) or a change to
 * one (only the fields that changed; '' clears a text). A refusal of the API is shown next to
 * the field it is about (a 409 for an email another lead has, under Email).
 */
export function LeadForm({
  label,
  lead,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  label: string;
  lead?: Lead;
  submitLabel: string;
  onSubmit: (fields: Partial<LeadFields>) => Promise<unknown>;
  onCancel?: () => void;
}) {
  const form = useForm({
    resolver: zodResolver(schema),
    defaultValues: {
      email: lead?.email ?? '',
      first_name: lead?.first_name ?? '',
      last_name: lead?.last_name ?? '',
      phone: lead?.phone ?? '',
      status: (lead?.status ?? 'new') as (typeof LEAD_STATUSES)[number],
      source: lead?.source ?? '',
    },
  });
  const { errors, dirtyFields, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    const fields: Partial<LeadFields> = {};
    for (const name of FIELD_NAMES) {
      // A change sends what changed; a new lead what was filled in.
      if (lead ? dirtyFields[name] : values[name] !== '') fields[name] = values[name];
    }
    if (lead && Object.keys(fields).length === 0) {
      onCancel?.();
      return;
    }
    try {
      await onSubmit(fields);
    } catch (error) {
      const { field, message } = serverFieldError(error, FIELD_NAMES);
      form.setError(field ?? 'root.server', { type: 'server', message }, { shouldFocus: true });
    }
  });
  return (
    <form aria-label={label} className="record-form" noValidate onSubmit={submit}>
      <Field
        label="Email"
        type="email"
        autoComplete="off"
        error={errors.email?.message}
        registration={form.register('email')}
      />
      <Field
        label="First name"
        error={errors.first_name?.message}
        registration={form.register('first_name')}
      />
      <Field
        label="Last name"
        error={errors.last_name?.message}
        registration={form.register('last_name')}
      />
      <Field
        label="Phone"
        type="tel"
        error={errors.phone?.message}
        registration={form.register('phone')}
      />
      <SelectField
        label="Status"
        options={STATUS_OPTIONS}
        error={errors.status?.message}
        registration={form.register('status')}
      />
      <Field label="Source" error={errors.source?.message} registration={form.register('source')} />
      {errors.root?.server && (
        <p role="alert" className="problem">
          {errors.root.server.message}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={isSubmitting}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
