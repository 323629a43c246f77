import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import {
  changeMemberRole,
  MEMBERS_KEY,
  removeMember,
  revokeInvitation,
  type Member,
  type Role,
} from '../../api/members';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { describeError } from '../../ui/describe-error';
import { assignableRoles, whyNotChange, whyNotRevoke } from './member-rules';

function useMembersChange<T>(call: (input: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: MEMBERS_KEY }),
  });
}

/** A member: their role (changed with its own button, so arrowing through the list sends nothing) and removal. */
export function MemberRow({
  member,
  actor,
  isSelf,
  activeOwners,
}: {
  member: Member;
  actor: Role | undefined;
  isSelf: boolean;
  activeOwners: number;
}) {
  const id = useId();
  const [role, setRole] = useState<Role>(member.role);
  const [confirming, setConfirming] = useState(false);
  const change = useMembersChange((next: Role) => changeMemberRole(member.userId as string, next));
  const remove = useMembersChange(() => removeMember(member.userId as string));
  const reason = whyNotChange(member, actor, activeOwners);
  const roles = assignableRoles(actor);
  const who = member.name ? `${member.name} (${member.email})` : member.email;
  const error = change.error ?? remove.error;
  return (
    <tr>
      <td>
        {member.name ?? '—'}
        {isSelf && ' (you)'}
      </td>
      <td>{member.email}</td>
      <td>
        <label htmlFor={`${id}-role`} className="visually-hidden">
          Role of {member.email}
        </label>
        <select
          id={`${id}-role`}
          value={role}
          disabled={Boolean(reason)}
          aria-describedby={reason ? `${id}-why` : undefined}
          onChange={(event) => setRole(event.target.value as Role)}
        >
          {/* The current role stays listed (an admin sees an owner's, disabled). */}
          {[...new Set([member.role, ...roles])].map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>{' '}
        <button
          type="button"
          disabled={Boolean(reason) || role === member.role || change.isPending}
          onClick={() => change.mutate(role)}
          aria-label={`Change role of ${member.email}`}
        >
          Change role
        </button>
      </td>
      <td>{member.status}</td>
      <td>
        <button
          type="button"
          className="danger"
          disabled={Boolean(reason) || remove.isPending}
          aria-describedby={reason ? `${id}-why` : undefined}
          onClick={() => setConfirming(true)}
          aria-label={`Remove ${member.email}`}
        >
          Remove
        </button>
        {reason && (
          <p id={`${id}-why`} className="muted field-hint">
            {reason}
          </p>
        )}
        {error && (
          <p role="alert" className="problem-inline">
            {describeError(error)}
          </p>
        )}
        <ConfirmDialog
          open={confirming}
          title={`Remove ${member.email}?`}
          confirmLabel="Remove member"
          busy={remove.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            remove.mutate(undefined);
          }}
        >
          <p>
            {who} loses access to this tenant at once
            {isSelf ? ', and so do you' : ''}. Their account stays; they can be invited again.
          </p>
        </ConfirmDialog>
      </td>
    </tr>
  );
}

/** A pending invitation, revoked after a confirmation. */
export function InvitationRow({
  invitation,
  actor,
}: {
  invitation: Member;
  actor: Role | undefined;
}) {
  const id = useId();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMembersChange(() => revokeInvitation(invitation.invitationId as string));
  const reason = whyNotRevoke(invitation, actor);
  return (
    <tr>
      <td>{invitation.email}</td>
      <td>{invitation.role}</td>
      <td>{invitation.invitedAt ? new Date(invitation.invitedAt).toLocaleString() : '—'}</td>
      <td>
        <button
          type="button"
          className="danger"
          disabled={Boolean(reason) || revoke.isPending}
          aria-describedby={reason ? `${id}-why` : undefined}
          onClick={() => setConfirming(true)}
          aria-label={`Revoke the invitation of ${invitation.email}`}
        >
          Revoke
        </button>
        {reason && (
          <p id={`${id}-why`} className="muted field-hint">
            {reason}
          </p>
        )}
        {revoke.isError && (
          <p role="alert" className="problem-inline">
            {describeError(revoke.error)}
          </p>
        )}
        <ConfirmDialog
          open={confirming}
          title={`Revoke the invitation of ${invitation.email}?`}
          confirmLabel="Revoke invitation"
          busy={revoke.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            revoke.mutate(undefined);
          }}
        >
          <p>The invitation link stops working; you can invite this email again later.</p>
        </ConfirmDialog>
      </td>
    </tr>
  );
}
