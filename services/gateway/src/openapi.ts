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
import {
  authorizeQuerySchema,
  clientRegistrationSchema,
  consentDecisionSchema,
  revocationFormSchema,
  tokenFormSchema,
  tokenResponseSchema,
} from './oauth/oauth.schema';

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

  registerOAuthOperations(registry);
}

const OAUTH_ERRORS =
  'Refusals come in the OAuth shape `{ error, error_description }` (RFC 6749 §5.2), not the ' +
  'platform envelope.';
const requestIdParam = z.object({ id: z.string().describe('The authorization request id') });

/** The MCP OAuth 2.1 authorization server (docs/mcp.md): protocol endpoints and consent. */
function registerOAuthOperations(registry: OpenAPIRegistry): void {
  addOperation(registry, {
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    tag: 'OAuth',
    summary: 'Authorization server metadata (RFC 8414)',
    description:
      'Where MCP clients find the endpoints below: PKCE S256 only, public clients only ' +
      '(`token_endpoint_auth_methods_supported: ["none"]`), the MCP scopes, Client ID ' +
      'Metadata Documents supported, `iss` in every authorization response (RFC 9207).',
    auth: 'public',
    success: {
      description: 'The metadata document',
      bare: z.record(z.string(), z.unknown()),
      example: {
        issuer: 'http://localhost:8080',
        authorization_endpoint: 'http://localhost:8080/api/oauth/authorize',
        token_endpoint: 'http://localhost:8080/api/oauth/token',
        code_challenge_methods_supported: ['S256'],
      },
    },
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/oauth/register',
    tag: 'OAuth',
    summary: 'Register a public OAuth client (RFC 7591)',
    description:
      'redirect_uris: 1 to 10, each https or http on 127.0.0.1, [::1] or localhost, without a ' +
      'fragment. No client secret is issued: the client proves itself with PKCE. ' +
      `400 \`invalid_redirect_uri\` or \`invalid_client_metadata\`. ${OAUTH_ERRORS}`,
    auth: 'public',
    body: {
      schema: clientRegistrationSchema,
      example: { client_name: 'My agent', redirect_uris: ['http://127.0.0.1:33418/callback'] },
    },
    success: {
      status: 201,
      description: 'Registered: client_id, client_id_issued_at and the accepted metadata',
      bare: z.record(z.string(), z.unknown()),
    },
    errors: [400],
    legacyErrors: true,
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/oauth/authorize',
    tag: 'OAuth',
    summary: 'Start an authorization (code flow with PKCE S256)',
    description:
      'Opened in the browser. An unknown client_id or a redirect_uri the client did not ' +
      'register (exactly; for a loopback http registration, with any port) is answered 400 ' +
      'here; other refusals redirect to redirect_uri with `error`, ' +
      '`error_description`, `state` and `iss`. Accepted: 302 to the console page ' +
      '`/oauth/consent?request=<id>`, where the user picks a tenant and approves (10 minutes).',
    auth: 'public',
    query: authorizeQuerySchema,
    success: {
      status: 302,
      description: 'To the consent page, or back to the client with an error',
      bare: z.string(),
      contentType: 'text/plain',
    },
    errors: [400],
    legacyErrors: true,
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/oauth/token',
    tag: 'OAuth',
    summary: 'Exchange a code, or rotate a refresh token, for tokens',
    description:
      'Form-encoded. A code lives 5 minutes and is used once: presented again it revokes its ' +
      'grant. Refresh tokens (30 days) rotate on every use; a used one presented again revokes ' +
      `the grant. Access tokens live 1 hour. \`Cache-Control: no-store\`. ${OAUTH_ERRORS}`,
    auth: 'public',
    body: {
      schema: tokenFormSchema,
      contentType: 'application/x-www-form-urlencoded',
      example: {
        grant_type: 'authorization_code',
        code: 'crm_oac_...',
        redirect_uri: 'http://127.0.0.1:33418/callback',
        client_id: 'k3J9...',
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      },
    },
    success: { description: 'The tokens', bare: tokenResponseSchema },
    errors: [400],
    legacyErrors: true,
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/oauth/revoke',
    tag: 'OAuth',
    summary: 'Revoke a token (RFC 7009)',
    description:
      'Form-encoded. 200 whether or not the token was known. An access token stops working at ' +
      'once; a refresh token revokes its whole grant.',
    auth: 'public',
    body: {
      schema: revocationFormSchema,
      contentType: 'application/x-www-form-urlencoded',
      example: { token: 'crm_ort_...', token_type_hint: 'refresh_token', client_id: 'k3J9...' },
    },
    success: { description: 'Revoked (or nothing to revoke)', bare: z.object({}) },
    errors: [400],
    legacyErrors: true,
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/auth/oauth/requests/{id}',
    tag: 'OAuth',
    summary: 'An authorization request waiting for consent (the console page)',
    description:
      'Needs a signed-in user, not a selected tenant. `tenants` are the active memberships ' +
      'where the user is owner or admin: the ones a client can be connected to.',
    auth: 'session',
    params: requestIdParam,
    success: {
      description: 'The request: client, scopes, tenants, expiry',
      data: z.object({
        id: z.string(),
        client: z.object({
          client_id: z.string(),
          name: z.string(),
          redirect_host: z.string(),
          document_host: z.string().nullable().openapi({
            description:
              "The host of the client's metadata document (its client_id URL), which vouches for its name; null for a client that registered itself, whose name is not verified",
          }),
        }),
        scopes: z.array(z.object({ scope: z.string(), description: z.string() })),
        tenants: z.array(z.object({ id: z.uuid(), name: z.string(), role: z.string() })),
        expires_at: z.string(),
      }),
    },
    errors: [404],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/auth/oauth/requests/{id}/decision',
    tag: 'OAuth',
    summary: 'Approve (for a tenant) or deny an authorization request',
    description:
      'The request is used up either way. `redirect_to` is where the console sends the ' +
      'browser: the client with `code`, `state` and `iss`, or `error=access_denied`. 403 when ' +
      'the user is not an owner or admin of tenant_id.',
    auth: 'session',
    params: requestIdParam,
    body: {
      schema: consentDecisionSchema,
      example: { decision: 'approve', tenant_id: '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a' },
    },
    success: {
      description: 'Where to send the browser',
      data: z.object({ redirect_to: z.string() }),
    },
    errors: [400, 404, 415],
  });
}
