import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';
import { api, type Envelope } from '../../api/client';
import type { Lead } from '../../api/leads';
import { Problem } from '../../ui/problem';
import { Loading } from '../../ui/states';

const FIELDS: Array<[keyof Lead, string]> = [
  ['email', 'Email'],
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['phone', 'Phone'],
  ['status', 'Status'],
  ['source', 'Source'],
  ['created_at', 'Created'],
  ['updated_at', 'Updated'],
];

/** One lead's fields (GET /api/crm/leads/:id), next to the list; its address can be shared. */
export function LeadDetail() {
  const { leadId = '' } = useParams();
  const heading = useRef<HTMLHeadingElement>(null);
  const lead = useQuery({
    queryKey: ['lead', leadId],
    queryFn: ({ signal }) =>
      api<Envelope<{ lead: Lead }>>(`/api/crm/leads/${encodeURIComponent(leadId)}`, { signal }),
    select: (body) => body.data.lead,
  });
  // Opening a lead moves the keyboard focus to its panel.
  useEffect(() => heading.current?.focus(), [leadId, lead.isSuccess]);
  return (
    <aside className="detail" aria-labelledby="lead-title">
      <h2 id="lead-title" ref={heading} tabIndex={-1}>
        {lead.data ? leadName(lead.data) : 'Lead'}
      </h2>
      {lead.isPending ? (
        <Loading what="the lead" />
      ) : lead.isError ? (
        <Problem error={lead.error} onRetry={() => void lead.refetch()} />
      ) : (
        <dl>
          {FIELDS.map(([field, label]) => (
            <div key={field}>
              <dt>{label}</dt>
              <dd>{show(field, lead.data[field])}</dd>
            </div>
          ))}
          {Object.entries(lead.data.custom_fields ?? {}).map(([key, value]) => (
            <div key={`custom-${key}`}>
              <dt>{key}</dt>
              <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      )}
      <Link to="/leads">Close</Link>
    </aside>
  );
}

function leadName(lead: Lead): string {
  return [lead.first_name, lead.last_name].filter(Boolean).join(' ') || lead.email;
}

function show(field: keyof Lead, value: Lead[keyof Lead]): string {
  if (value === null || value === undefined || value === '') return '—';
  if (field === 'created_at' || field === 'updated_at')
    return new Date(String(value)).toLocaleString();
  return String(value);
}
