import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { fetchLead, type Lead } from '../../api/leads';
import { useRole } from '../../session/use-role';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { describeError } from '../../ui/describe-error';
import { QueryStates } from '../../ui/states';
import { LeadDeals } from './lead-deals';
import { LeadForm } from './lead-form';
import { LeadTimeline } from './lead-timeline';
import { useLeadWrites } from './use-lead-writes';
import { dateTime } from '../../ui/date-time';

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

/**
 * One lead next to the list (GET /api/crm/leads/:id; the address can be shared): its fields,
 * its deals and its timeline. Anyone but a viewer may edit it (PATCH) or delete it (DELETE,
 * after a confirmation).
 */
export function LeadDetail() {
  const { leadId = '' } = useParams();
  const navigate = useNavigate();
  const { canWrite } = useRole();
  const { update, remove } = useLeadWrites();
  const heading = useRef<HTMLHeadingElement>(null);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const lead = useQuery({
    queryKey: ['lead', leadId],
    queryFn: ({ signal }) => fetchLead(leadId, signal),
    select: (body) => body.data.lead,
  });
  // Another lead opened: its own panel, not the previous one's form or question.
  useEffect(() => {
    setEditing(false);
    setConfirming(false);
  }, [leadId]);
  // Opening a lead, or leaving its form, moves the keyboard focus to its panel.
  useEffect(() => heading.current?.focus(), [leadId, lead.isSuccess, editing]);

  const confirmDelete = () =>
    remove.mutate(leadId, {
      onSuccess: () => {
        setConfirming(false);
        void navigate('/leads');
      },
    });

  return (
    <aside className="detail" aria-labelledby="lead-title">
      <h2 id="lead-title" ref={heading} tabIndex={-1}>
        {lead.data ? leadName(lead.data) : 'Lead'}
      </h2>
      <QueryStates query={lead} what="the lead">
        {(data) =>
          editing ? (
            <LeadForm
              key={data.updated_at}
              label="Edit lead"
              lead={data}
              submitLabel="Save lead"
              onSubmit={async (change) => {
                await update.mutateAsync({ id: leadId, change });
                setEditing(false);
              }}
              onCancel={() => setEditing(false)}
            />
          ) : (
            <>
              <dl>
                {FIELDS.map(([field, label]) => (
                  <div key={field}>
                    <dt>{label}</dt>
                    <dd>{show(field, data[field])}</dd>
                  </div>
                ))}
                {Object.entries(data.custom_fields ?? {}).map(([key, value]) => (
                  <div key={`custom-${key}`}>
                    <dt>{key}</dt>
                    <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
                  </div>
                ))}
              </dl>
              {canWrite && (
                <div className="actions">
                  <button type="button" onClick={() => setEditing(true)}>
                    Edit lead
                  </button>
                  <button type="button" className="danger" onClick={() => setConfirming(true)}>
                    Delete lead
                  </button>
                </div>
              )}
              <LeadDeals leadId={leadId} />
              <LeadTimeline leadId={leadId} />
              <ConfirmDialog
                open={confirming}
                title="Delete this lead?"
                confirmLabel="Delete"
                busy={remove.isPending}
                onConfirm={confirmDelete}
                onCancel={() => {
                  setConfirming(false);
                  remove.reset();
                }}
              >
                <p>
                  {data.email} will be deleted. Its deals and activities stay, without the lead.
                </p>
                {remove.isError && (
                  <p role="alert" className="problem">
                    {describeError(remove.error)}
                  </p>
                )}
              </ConfirmDialog>
            </>
          )
        }
      </QueryStates>
      <Link to="/leads">Close</Link>
    </aside>
  );
}

function leadName(lead: Lead): string {
  return [lead.first_name, lead.last_name].filter(Boolean).join(' ') || lead.email;
}

function show(field: keyof Lead, value: Lead[keyof Lead]): string {
  if (value === null || value === undefined || value === '') return '—';
  if (field === 'created_at' || field === 'updated_at') return dateTime(String(value));
  return String(value);
}
