import {
  addOperation,
  healthResponse,
  readinessResponse,
  idParam,
  record,
  type OpenAPIRegistry,
} from '@crm/shared/openapi';
import { z } from 'zod';
import { activeTenantSchema, signInSchema, signUpSchema } from './auth/auth.schema';
import { addSchema, changeSchema } from './members/members.schema';

/*
 * The gateway's own operations (sign-in, sessions, members, invitations, health, this
 * reference), from the schemas its routes validate with. Build-time only (scripts/openapi).
 */

const account = z
  .object({ user: z.unknown(), tenant: z.unknown() })
  .catchall(z.unknown())
  .openapi('Account');
const member = record.openapi('Member');
const invitation = record.openapi('Invitation');

export function registerOperations(registry: OpenAPIRegistry): void {
  addOperation(registry, {
    method: 'get',
    path: '/health',
    tag: 'Health',
    summary: 'Liveness and readiness of one process',
    description:
      'Every service answers this on its own port (internal, not proxied); through the ' +
      "gateway it is the gateway's own.",
    auth: 'public',
    success: {
      description: 'Healthy or degraded (503 when unhealthy)',
      bare: healthResponse,
      example: {
        status: 'healthy',
        version: '0.1.0',
        uptime: 42.1,
        checks: { database: { status: 'up' }, memory: { status: 'up' } },
      },
    },
    errors: [503],
  });
  addOperation(registry, {
    method: 'get',
    path: '/ready',
    tag: 'Health',
    summary: 'Readiness of one process: whether it should be sent traffic',
    description:
      'Every service answers this on its own port (internal, not proxied; the Kubernetes ' +
      'readiness probe). 503 while the database does not answer, while the event bus (NATS) ' +
      'is disconnected, and from the moment the process starts shutting down (SIGTERM).',
    auth: 'public',
    success: {
      description: 'Ready (503 `not_ready` otherwise, same shape)',
      bare: readinessResponse,
      example: { status: 'ready', checks: { database: 'up', bus: 'up', draining: false } },
    },
    errors: [503],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/health',
    tag: 'Health',
    summary: 'Platform health: the gateway, its database, events and every service',
    auth: 'public',
    success: { description: 'The platform health', bare: healthResponse.catchall(z.unknown()) },
    errors: [503],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/openapi.json',
    tag: 'Reference',
    summary: 'This OpenAPI 3.1 document',
    auth: 'public',
    success: {
      description: 'The document (the interactive browser is at /api-docs)',
      bare: z.record(z.string(), z.unknown()),
      example: { openapi: '3.1.0', info: { title: 'CRM platform API', version: '1.0.0' } },
    },
  });

  addOperation(registry, {
    method: 'post',
    path: '/api/auth/sign-up',
    tag: 'Auth',
    summary: 'Create an account and its first tenant',
    auth: 'public',
    body: {
      schema: signUpSchema,
      example: { email: 'ada@example.com', password: 'correct horse', tenantName: 'Acme' },
    },
    success: { status: 201, description: 'Account created', data: account },
    errors: [400, 409, 415, 429],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/auth/sign-in',
    tag: 'Auth',
    summary: 'Sign in: sets the crm_session cookie',
    auth: 'public',
    body: {
      schema: signInSchema,
      example: { email: 'ada@example.com', password: 'correct horse' },
    },
    success: { description: 'Signed in (Set-Cookie: crm_session)', data: account },
    errors: [400, 401, 415, 429],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/auth/sign-out',
    tag: 'Auth',
    summary: 'Sign out: ends the session',
    auth: 'public',
    success: { description: 'Signed out', data: z.object({ signedOut: z.literal(true) }) },
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/auth/me',
    tag: 'Auth',
    summary: 'The signed-in user, their tenants and the active one',
    auth: 'session',
    success: { description: 'The session', data: account },
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/auth/active-tenant',
    tag: 'Auth',
    summary: 'Choose the active tenant of the session',
    auth: 'session',
    body: {
      schema: activeTenantSchema,
      example: { tenantId: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a' },
    },
    success: { description: 'Active tenant set', data: account },
    errors: [400, 415],
  });

  addOperation(registry, {
    method: 'get',
    path: '/api/auth/members',
    tag: 'Members',
    summary: 'Members and pending invitations of the active tenant (owners, admins)',
    auth: 'session',
    success: { description: 'The members', data: z.object({ members: z.array(member) }) },
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/auth/members',
    tag: 'Members',
    summary: 'Invite a user to the active tenant',
    auth: 'session',
    body: { schema: addSchema, example: { email: 'grace@example.com', role: 'member' } },
    success: { status: 201, description: 'Invited', data: z.object({ member }) },
    errors: [400, 409, 415],
  });
  addOperation(registry, {
    method: 'delete',
    path: '/api/auth/members/invitations/{invitationId}',
    tag: 'Members',
    summary: 'Withdraw a pending invitation',
    auth: 'session',
    params: idParam('invitationId'),
    success: { description: 'Withdrawn', data: z.object({ invitation }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'patch',
    path: '/api/auth/members/{userId}',
    tag: 'Members',
    summary: "Change a member's role or status",
    auth: 'session',
    params: idParam('userId'),
    body: { schema: changeSchema, example: { role: 'admin' } },
    success: { description: 'Member updated', data: z.object({ member }) },
    errors: [400, 404, 409, 415],
  });
  addOperation(registry, {
    method: 'delete',
    path: '/api/auth/members/{userId}',
    tag: 'Members',
    summary: 'Remove a member from the active tenant (owners, admins)',
    description:
      'Deletes the membership; the account and its other memberships stay, and the user can ' +
      'be invited again. Only an owner may remove an owner; the last active owner cannot be ' +
      'removed (409). A removed member loses access at once.',
    auth: 'session',
    params: idParam('userId'),
    success: { description: 'Removed', data: z.object({ member }) },
    errors: [400, 404, 409],
  });

  addOperation(registry, {
    method: 'get',
    path: '/api/auth/invitations',
    tag: 'Invitations',
    summary: "The signed-in user's pending invitations",
    auth: 'session',
    success: {
      description: 'The invitations',
      data: z.object({ invitations: z.array(invitation) }),
    },
  });
  for (const answer of ['accept', 'decline'] as const) {
    addOperation(registry, {
      method: 'post',
      path: `/api/auth/invitations/{invitationId}/${answer}`,
      tag: 'Invitations',
      summary: `${answer === 'accept' ? 'Accept' : 'Decline'} an invitation`,
      auth: 'session',
      params: idParam('invitationId'),
      success: { description: `Invitation ${answer}d`, data: z.object({ invitation }) },
      errors: [404, 409],
    });
  }
}
