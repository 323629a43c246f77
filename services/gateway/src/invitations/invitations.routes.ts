import type { Database } from '@crm/shared/db';
import type { SessionCache } from '../tenancy/session-cache';
import { jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { invitationView, membershipView } from '../auth/views';
import { listPendingInvitations } from '../tenancy/cross-tenant-lookups';
import { authenticate } from '../auth/require-session';
import { invitationIdSchema } from '../members/members.schema';
import { acceptInvitation, declineInvitation } from './answer-invitation';

/**
 * `/api/auth/invitations`: the signed-in user's own pending invitations, and their answer.
 * A session is enough (no tenant is selected): a user whose only membership is disabled, or
 * who has just signed up, can still see and answer what they were invited to.
 */
export function invitationRoutes(
  db: Kysely<Database>,
  bodyLimitBytes: number,
  sessionCache?: SessionCache,
): Router {
  const router = Router();
  router.use(jsonBody(bodyLimitBytes));

  router.get('/', async (req, res) => {
    const user = await authenticate(db, req);
    const invitations = await listPendingInvitations(db, user.email);
    sendSuccess(res, { invitations: invitations.map(invitationView) });
  });

  router.post('/:invitationId/accept', async (req, res) => {
    const user = await authenticate(db, req);
    const invitationId = validate(invitationIdSchema, req.params.invitationId, 'invitation id');
    const membership = await acceptInvitation(db, user, invitationId);
    sessionCache?.drop({ user: user.id });
    sendSuccess(
      res,
      { membership: membershipView(membership) },
      { message: 'Invitation accepted' },
    );
  });

  router.post('/:invitationId/decline', async (req, res) => {
    const user = await authenticate(db, req);
    const invitationId = validate(invitationIdSchema, req.params.invitationId, 'invitation id');
    await declineInvitation(db, user, invitationId);
    sendSuccess(
      res,
      { invitation: { invitationId, status: 'declined' } },
      { message: 'Invitation declined' },
    );
  });

  return router;
}
