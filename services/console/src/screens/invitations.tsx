import { useMutation, useQueryClient } from '@tanstack/react-query';
import { answerInvitation, setActiveTenant, type Invitation } from '../api/auth';
import { useMe } from '../session/use-me';
import { describeError } from '../ui/describe-error';
import { QueryStates } from '../ui/states';

/** Pending invitations (from GET /api/auth/me) with accept and decline. */
export function InvitationsScreen() {
  // What it lists may have come since the session was last asked for: it asks on opening.
  const me = useMe({ fresh: true });
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Invitations</h1>
      <QueryStates
        query={me}
        what="invitations"
        isEmpty={(data) => data.invitations.length === 0}
        empty={<p>No pending invitations.</p>}
      >
        {(data) => (
          <ul className="invitations">
            {data.invitations.map((invitation) => (
              <InvitationRow
                key={invitation.invitationId}
                invitation={invitation}
                currentTenantId={data.selectedTenant?.tenantId}
              />
            ))}
          </ul>
        )}
      </QueryStates>
    </section>
  );
}

/**
 * One invitation. Accepting keeps the user in the tenant they are working in: without an
 * active-tenant cookie the gateway would pick the most recently joined tenant, the new one, so
 * the current one is made explicit first.
 */
function InvitationRow({
  invitation,
  currentTenantId,
}: {
  invitation: Invitation;
  currentTenantId?: string;
}) {
  const queryClient = useQueryClient();
  const answer = useMutation({
    mutationFn: async (choice: 'accept' | 'decline') => {
      if (choice === 'accept' && currentTenantId) await setActiveTenant(currentTenantId);
      return answerInvitation(invitation.invitationId, choice);
    },
    onSuccess: () => queryClient.resetQueries(),
  });
  return (
    <li>
      <span>
        <strong>{invitation.name}</strong> invites you as <em>{invitation.role}</em> (since{' '}
        {new Date(invitation.invitedAt).toLocaleDateString()})
      </span>
      <button
        type="button"
        onClick={() => answer.mutate('accept')}
        disabled={answer.isPending}
        aria-label={`Accept the invitation to ${invitation.name}`}
      >
        Accept
      </button>
      <button
        type="button"
        onClick={() => answer.mutate('decline')}
        disabled={answer.isPending}
        aria-label={`Decline the invitation to ${invitation.name}`}
      >
        Decline
      </button>
      {answer.isError && (
        <span role="alert" className="problem-inline">
          {describeError(answer.error)}
        </span>
      )}
    </li>
  );
}
