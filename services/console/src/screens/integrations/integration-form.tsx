import { zodResolver } from '@hookform/resolvers/zod';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { Field, SelectField } from '../../ui/field';
import { serverFieldError } from '../../ui/server-field-error';
import type { FieldSpec } from './integration-kinds';

type Values = Record<string, string>;

function schemaOf(fields: FieldSpec[]) {
  return z.object(
    Object.fromEntries(
      fields.map((field) => [
        field.name,
        field.required ? z.string().trim().min(1, `${field.label} is required`) : z.string(),
      ]),
    ),
  );
}

/**
 * A connect or change form for one kind of integration, built from its field list. Secret
 * fields are password inputs that start empty and are never filled from the server (secrets
 * are write-only); on a change an empty secret keeps the stored one. `toBody` turns the
 * values into the request body; a refusal is shown at its field, or above the buttons.
 */
export function IntegrationForm({
  title,
  fields,
  submitLabel,
  busy,
  error,
  initial = {},
  extra,
  onSubmit,
  onCancel,
}: {
  title: string;
  fields: FieldSpec[];
  submitLabel: string;
  busy: boolean;
  error: unknown;
  initial?: Values;
  /** More inputs (e.g. "remove the secret"), placed before the buttons. */
  extra?: React.ReactNode;
  onSubmit: (values: Values) => void;
  onCancel: () => void;
}) {
  const id = useId();
  const form = useForm<Values>({
    resolver: zodResolver(schemaOf(fields)),
    defaultValues: Object.fromEntries(
      fields.map((field) => [field.name, initial[field.name] ?? field.options?.[0]?.[0] ?? '']),
    ),
  });
  const refused = error
    ? serverFieldError(
        error,
        fields.map((field) => field.name),
      )
    : undefined;
  const errorOf = (name: string) =>
    form.formState.errors[name]?.message ?? (refused?.field === name ? refused.message : undefined);
  return (
    <form
      aria-labelledby={`${id}-title`}
      className="integration-form"
      noValidate
      onSubmit={form.handleSubmit(onSubmit)}
    >
      <h3 id={`${id}-title`}>{title}</h3>
      {fields.map((field) =>
        field.options ? (
          <SelectField
            key={field.name}
            label={field.label}
            options={field.options}
            error={errorOf(field.name)}
            registration={form.register(field.name)}
          />
        ) : (
          <Field
            key={field.name}
            label={field.label}
            type={field.secret ? 'password' : 'text'}
            autoComplete={field.secret ? 'new-password' : 'off'}
            hint={field.hint}
            error={errorOf(field.name)}
            registration={form.register(field.name)}
          />
        ),
      )}
      {extra}
      {refused && !refused.field && (
        <p role="alert" className="problem-inline">
          {refused.message}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
