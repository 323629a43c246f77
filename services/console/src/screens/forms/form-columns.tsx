import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { FormField, FormSubmission, WebForm } from '../../api/forms';
import { dateTime } from '../../ui/date-time';

const form = createColumnHelper<WebForm>();

/** The forms table's columns; name, slug and created are among the API's sorts. */
export const FORM_COLUMNS = [
  form.accessor('name', {
    header: 'Name',
    cell: (info) => <Link to={`/forms/${info.row.original.id}`}>{info.getValue()}</Link>,
  }),
  form.accessor('slug', { header: 'Slug' }),
  form.accessor('fields', {
    header: 'Fields',
    enableSorting: false,
    cell: (info) => info.getValue().length,
  }),
  form.accessor('enabled', {
    header: 'Enabled',
    enableSorting: false,
    cell: (info) => (info.getValue() ? 'Yes' : 'No'),
  }),
  form.accessor('created_at', {
    header: 'Created',
    cell: (info) => dateTime(info.getValue()),
  }),
];

const submission = createColumnHelper<FormSubmission>();

const text = (value: unknown) =>
  value === undefined || value === ''
    ? '—'
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

/**
 * A form's submissions: when, a column per field of the form (email first: every submission
 * has one) in the form's order, any other value submitted, the lead it was filed under.
 */
export function submissionColumns(fields: FormField[]) {
  const named = fields.some((f) => f.name === 'email')
    ? fields
    : [{ name: 'email', label: 'Email' } as FormField, ...fields];
  const known = new Set(named.map((f) => f.name));
  return [
    submission.accessor('created_at', {
      header: 'Received',
      enableSorting: false,
      cell: (info) => dateTime(info.getValue()),
    }),
    ...named.map((field) =>
      submission.display({
        id: `field-${field.name}`,
        header: field.label ?? field.name,
        cell: (info) => text(info.row.original.payload[field.name]),
      }),
    ),
    submission.display({
      id: 'other',
      header: 'Other values',
      cell: (info) =>
        Object.entries(info.row.original.payload)
          .filter(([key]) => !known.has(key))
          .map(([key, value]) => `${key}: ${text(value)}`)
          .join('; ') || '—',
    }),
    submission.accessor('lead_id', {
      header: 'Lead',
      enableSorting: false,
      cell: (info) => {
        const id = info.getValue();
        return id ? <Link to={`/leads/${id}`}>Open lead</Link> : '—';
      },
    }),
  ];
}
