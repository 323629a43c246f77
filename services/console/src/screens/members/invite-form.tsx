import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { inviteMember, MEMBERS_KEY, type Role } from '../../api/members';
import { describeError } from '../../ui/describe-error';
import { Field, SelectField } from '../../ui/field';
import { assignableRoles } from './member-rules';

const schema = z.object({
  email: z.email({ message: 'Enter an email address' }).max(320),
  role: z.enum(['owner', 'admin', 'member', 'viewer']),
});
type Invite = z.infer<typeof schema>;

const ROLE_HINTS: Record<Role, string> = {
  owner: 'Owner: everything, including owners',
  admin: 'Admin: members, keys, forms and records',
  member: 'Member: reads and writes records',
  viewer: 'Viewer: reads only',
};

/** Invite by email with a role; the invitee joins by accepting (their Invitations screen). */
export function InviteForm({ actor }: { actor: Role | undefined }) {
  const id = useId();
  const queryClient = useQueryClient();
  const form = useForm<Invite>({
    resolver: zodResolver(schema),
    defaultValues: { email: '', role: 'member' },
  });
  const invite = useMutation({
    mutationFn: inviteMember,
    onSuccess: () => {
      form.reset({ email: '', role: form.getValues('role') });
      return queryClient.invalidateQueries({ queryKey: MEMBERS_KEY });
    },
  });
  const errors = form.formState.errors;
  return (
    <section aria-labelledby={`${id}-title`} className="panel-section">
      <h2 id={`${id}-title`}>Invite a member</h2>
      <form
        className="record-form inline-form"
        noValidate
        onSubmit={form.handleSubmit((values) => invite.mutate(values))}
      >
        <Field
          label="Email"
          type="email"
          autoComplete="off"
          error={errors.email?.message}
          registration={form.register('email')}
        />
        <SelectField
          label="Role"
          options={assignableRoles(actor).map((role) => [role, ROLE_HINTS[role]] as const)}
          error={errors.role?.message}
          registration={form.register('role')}
        />
        <button type="submit" disabled={invite.isPending}>
          Send invitation
        </button>
      </form>
      <p role="status" className="muted">
        {invite.isSuccess && `Invitation sent to ${invite.data.data.invitation.email}.`}
      </p>
      {invite.isError && (
        <p role="alert" className="problem-inline">
          {describeError(invite.error)}
        </p>
      )}
    </section>
  );
}
