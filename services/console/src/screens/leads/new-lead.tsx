import { useEffect, useRef } from 'react';
import { Link, useNavigate } from 'react-router';
import { useRole } from '../../session/use-role';
import { LeadForm } from './lead-form';
import { useLeadWrites } from './use-lead-writes';

/** A new lead (POST /api/crm/leads) beside the list, at /leads/new; once created, its panel. */
export function NewLead() {
  const navigate = useNavigate();
  const { canWrite } = useRole();
  const { create } = useLeadWrites();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <aside className="detail" aria-labelledby="new-lead-title">
      <h2 id="new-lead-title" ref={heading} tabIndex={-1}>
        New lead
      </h2>
      {canWrite ? (
        <LeadForm
          label="New lead"
          submitLabel="Create lead"
          onSubmit={async (fields) => {
            const lead = await create.mutateAsync(fields);
            await navigate(`/leads/${lead.id}`);
          }}
          onCancel={() => void navigate('/leads')}
        />
      ) : (
        <p>Your role in this tenant is viewer: you may read the leads, not add one.</p>
      )}
      <Link to="/leads">Close</Link>
    </aside>
  );
}
