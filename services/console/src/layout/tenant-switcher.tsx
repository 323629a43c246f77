import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { setActiveTenant, type Me } from '../api/auth';
import { describeError } from '../ui/describe-error';

/**
 * The active tenant (POST /api/auth/active-tenant sets its cookie). Switching drops every cached
 * answer, so nothing of the previous tenant stays on screen.
 */
export function TenantSwitcher({ me }: { me: Me }) {
  const id = useId();
  const queryClient = useQueryClient();
  const switching = useMutation({
    mutationFn: setActiveTenant,
    onSuccess: () => queryClient.resetQueries(),
  });
  const active = me.memberships.filter((m) => m.status === 'active');
  if (active.length === 0) return null;
  return (
    <div className="tenant-switcher">
      <label htmlFor={id}>Tenant</label>
      <select
        id={id}
        value={me.selectedTenant?.tenantId ?? ''}
        disabled={switching.isPending}
        onChange={(event) => event.target.value && switching.mutate(event.target.value)}
      >
        {!me.selectedTenant && <option value="">Choose a tenant</option>}
        {active.map((m) => (
          <option key={m.tenantId} value={m.tenantId}>
            {m.name} ({m.role})
          </option>
        ))}
      </select>
      {switching.isError && (
        <span role="alert" className="problem-inline">
          {describeError(switching.error)}
        </span>
      )}
    </div>
  );
}
