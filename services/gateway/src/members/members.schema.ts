import { ROLES } from '@crm/shared/identity';
import { z } from 'zod';

const MANAGED_STATUSES = ['active', 'disabled'] as const;
const MANAGED_STATUS_MESSAGE =
  'must be one of: active, disabled (an invitation is accepted by the invited user only)';

export const addSchema = z.object({
  email: z
    .email({ message: 'must be an email address' })
    .max(320)
    .transform((e) => e.toLowerCase()),
  role: z.enum(ROLES, { message: `must be one of: ${ROLES.join(', ')}` }),
});
export type MemberAdd = z.infer<typeof addSchema>;

export const changeSchema = z
  .object({
    role: z.enum(ROLES, { message: `must be one of: ${ROLES.join(', ')}` }).optional(),
    // Not 'invited': only the invitee moves a membership out of (or into) that state.
    status: z.enum(MANAGED_STATUSES, { message: MANAGED_STATUS_MESSAGE }).optional(),
  })
  .refine((v) => v.role !== undefined || v.status !== undefined, {
    message: 'give a role or a status',
  });
export type MemberChange = z.infer<typeof changeSchema>;

export const userIdSchema = z.uuid({ message: 'must be a user id (uuid)' });

/**
 * An invitation's id in a path: the managers' revoke here, and the invitee's accept and decline
 * in invitations/, which builds on this folder (its lock and its invitations) and never the
 * other way round.
 */
export const invitationIdSchema = z.uuid({ message: 'must be an invitation id (uuid)' });
