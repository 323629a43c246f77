import { createColumnHelper } from '@tanstack/react-table';
import { Link } from 'react-router';
import type { FormSubmission, WebForm } from '../../api/forms';

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
    cell: (info) => new Date(info.getValue()).toLocaleString(),
  }),
];

const submission = createColumnHelper<FormSubmission>();

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A form's submissions: when, the email, every other value submitted, the lead it went to. */
export const SUBMISSION_COLUMNS = [
  submission.accessor('created_at', {
    header: 'Received',
    enableSorting: false,
    cell: (info) => new Date(info.getValue()).toLocaleString(),
  }),
  submission.display({
    id: 'email',
    header: 'Email',
    cell: (info) => text(info.row.original.payload.email ?? ''),
  }),
  submission.display({
    id: 'values',
    header: 'Other values',
    cell: (info) =>
      Object.entries(info.row.original.payload)
        .filter(([key]) => key !== 'email')
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
