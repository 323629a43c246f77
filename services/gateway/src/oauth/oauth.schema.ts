import { unstorableText, uuid } from '@crm/shared/http';
import { MCP_SCOPES } from '@crm/shared/mcp-access';
import { z } from 'zod';
import { OAuthError, type OAuthErrorCode } from './oauth-errors';
import { MAX_REDIRECT_URIS } from './redirect-uri';

/*
 * What the authorization server's endpoints accept. The protocol endpoints read query strings
 * and form bodies parameter by parameter (`oauthParams`), since OAuth names the error of each
 * missing or malformed one; the zod objects here describe them for the API reference and check
 * the JSON bodies (registration, the consent decision).
 */

/** RFC 7591 registration (public clients only); unknown metadata is ignored. */
export const clientRegistrationSchema = z.object({
  redirect_uris: z.array(z.string()).min(1).max(MAX_REDIRECT_URIS),
  client_name: z.string().trim().min(1).max(200).optional(),
  token_endpoint_auth_method: z
    .literal('none', { message: 'only public clients (token_endpoint_auth_method "none")' })
    .optional(),
  grant_types: z
    .array(z.enum(['authorization_code', 'refresh_token']))
    .min(1)
    .optional(),
  response_types: z.array(z.literal('code')).min(1).optional(),
});
export type ClientRegistration = z.infer<typeof clientRegistrationSchema>;

export const authorizeQuerySchema = z.object({
  response_type: z.literal('code'),
  client_id: z.string(),
  redirect_uri: z.string(),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  code_challenge_method: z.literal('S256'),
  scope: z.string().optional().describe('Space-separated MCP scopes; absent: every scope'),
  state: z.string().optional(),
  resource: z.string().optional().describe('The MCP server (`<PUBLIC_BASE_URL>/api/mcp`)'),
});

export const tokenFormSchema = z.object({
  grant_type: z.enum(['authorization_code', 'refresh_token']),
  client_id: z.string(),
  code: z.string().optional().describe('authorization_code: the code from the redirect'),
  redirect_uri: z.string().optional().describe('authorization_code: as in the authorize call'),
  code_verifier: z.string().optional().describe('authorization_code: the PKCE verifier'),
  refresh_token: z.string().optional().describe('refresh_token: the current refresh token'),
  scope: z.string().optional().describe('refresh_token: narrower scopes (space-separated)'),
  resource: z.string().optional(),
});

export const tokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string(),
  scope: z.string(),
});

export const revocationFormSchema = z.object({
  token: z.string(),
  token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
  client_id: z.string().optional(),
});

/** The consent page's answer. */
export const consentDecisionSchema = z.discriminatedUnion('decision', [
  z.object({ decision: z.literal('approve'), tenant_id: uuid('tenant_id') }),
  z.object({ decision: z.literal('deny') }),
]);

/** An authorization request's id: 32 random bytes, base64url. */
export const AUTHORIZATION_REQUEST_ID = /^[A-Za-z0-9_-]{43}$/;

/** A parameter longer than this is refused, whatever it is (the longest legitimate: a URL). */
const MAX_PARAM_LENGTH = 2048;

/**
 * Reads single-valued OAuth parameters from a parsed query string or form body: a parameter sent
 * twice, or as anything but a string, over MAX_PARAM_LENGTH or holding a NUL, is
 * `invalid_request` (RFC 6749 §3.1); an empty one counts as absent.
 */
export function oauthParams(source: unknown, error: OAuthErrorCode = 'invalid_request') {
  const params =
    source !== null && typeof source === 'object' ? (source as Record<string, unknown>) : {};
  return {
    optional(name: string): string | undefined {
      const value = Object.hasOwn(params, name) ? params[name] : undefined;
      if (value === undefined || value === '') return undefined;
      if (typeof value !== 'string')
        throw new OAuthError(error, `${name} must be given once, as text`);
      if (value.length > MAX_PARAM_LENGTH)
        throw new OAuthError(error, `${name} is longer than ${MAX_PARAM_LENGTH} characters`);
      const unstorable = unstorableText(value);
      if (unstorable) throw new OAuthError(error, `${name} ${unstorable}`);
      return value;
    },
    required(name: string): string {
      const value = this.optional(name);
      if (value === undefined) throw new OAuthError(error, `${name} is required`);
      return value;
    },
  };
}

/**
 * `scope` as a list of MCP scopes (space-separated, duplicates dropped, in MCP_SCOPES order);
 * absent: `fallback`. An unknown scope is `invalid_scope`.
 */
export function parseScopes(value: string | undefined, fallback: readonly string[]): string[] {
  if (value === undefined || value.trim() === '') return [...fallback];
  const asked = new Set(value.split(' ').filter(Boolean));
  const unknown = [...asked].filter((s) => !(MCP_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0)
    throw new OAuthError('invalid_scope', `Unknown scope: ${unknown[0].slice(0, 100)}`);
  return MCP_SCOPES.filter((s) => asked.has(s));
}
