import { useQuery } from '@tanstack/react-query';
import { fetchMembers, MEMBERS_KEY, type Member } from '../../api/members';
import { useRole } from '../../session/use-role';
import { Empty, QueryStates } from '../../ui/states';
import { InviteForm } from './invite-form';
import { InvitationRow, MemberRow } from './member-rows';

/**
 * Members of the selected tenant (GET /api/auth/members: owners and admins only, so anyone
 * else sees the 403's explanation of the role it needs), their roles and the pending
 * invitations; invite, change a role, remove, revoke. What the gateway's rules forbid is shown
 * disabled with the reason next to it.
 */
export function MembersScreen() {
  const { role, userId, canListMembers } = useRole();
  const members = useQuery({
    queryKey: MEMBERS_KEY,
    queryFn: ({ signal }) => fetchMembers(signal),
    select: (body) => body.data.members,
  });
  const list = members.data ?? [];
  const joined = list.filter((m) => m.userId);
  const invited = list.filter((m) => m.invitationId);
  const activeOwners = joined.filter((m) => m.role === 'owner' && m.status === 'active').length;
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Members</h1>
      <QueryStates query={members} what="members">
        {() => (
          <>
            {canListMembers && <InviteForm actor={role as Member['role']} />}
            <table className="plain-table">
              <caption>Members ({joined.length})</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {joined.map((member) => (
                  <MemberRow
                    key={member.userId}
                    member={member}
                    actor={role as Member['role']}
                    isSelf={member.userId === userId}
                    activeOwners={activeOwners}
                  />
                ))}
              </tbody>
            </table>
            <h2>Pending invitations</h2>
            {invited.length === 0 ? (
              <Empty>
                <p>No pending invitations. Invite someone by email above.</p>
              </Empty>
            ) : (
              <table className="plain-table">
                <caption className="visually-hidden">Pending invitations</caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Invited</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {invited.map((invitation) => (
                    <InvitationRow
                      key={invitation.invitationId}
                      invitation={invitation}
                      actor={role as Member['role']}
                    />
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </QueryStates>
    </section>
  );
}
