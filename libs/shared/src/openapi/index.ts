import {
  extendZodWithOpenApi,
  OpenAPIRegistry,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { z, type ZodType } from 'zod';

/*
 * The pieces every service's `src/openapi.ts` uses to declare its operations next to its zod
 * schemas (scripts/openapi/generate.ts assembles them into the one document the gateway serves).
 * Build-time only: no service imports this at run time.
 */
extendZodWithOpenApi(z);

export { OpenAPIRegistry };

/**
 * How a caller authenticates (specified: session, HMAC-signed, MCP bearer key, provider
 * signature, or public): the names of the security schemes.
 */
export type Auth =
  | 'session'
  | 'public'
  | 'serviceHmac'
  | 'mcpBearer'
  | { signatures: ReadonlyArray<{ provider: string; header: string; description: string }> };

/** The document's shared security schemes (provider schemes are added per receiver). */
export const SECURITY_SCHEMES = {
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'crm_session',
    description:
      'Sign in with POST /api/auth/sign-in (email, password): the gateway sets the HttpOnly ' +
      '`crm_session` cookie. Send it on every Session route (browsers do so on the same origin).',
  },
  serviceHmac: {
    type: 'apiKey',
    in: 'header',
    name: 'x-svc-signature',
    description:
      'Signed migration calls (/api/migrate/*): `x-svc-signature` = hex HMAC-SHA256 keyed by the ' +
      'shared secret over method, path, timestamp (ms), nonce and raw body joined by "\\n", with ' +
      '`x-svc-timestamp` and a single-use `x-svc-nonce`. See docs/migrate.md for a worked example.',
  },
  mcpBearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'MCP clients: `Authorization: Bearer <key>` with a key created at /api/mcp/keys, or an OAuth ' +
      'access token (`crm_oat_…`) from the authorization server the protected resource metadata names.',
  },
} as const;

export const failureEnvelope = z
  .object({
    success: z.literal(false),
    error: z.string(),
    code: z.enum([
      'INVALID_REQUEST',
      'VALIDATION_ERROR',
      'INVALID_JSON',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'TENANT_ACCESS_DENIED',
      'NOT_FOUND',
      'CONFLICT',
      'ALREADY_EXISTS',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'RATE_LIMIT_EXCEEDED',
      'INTERNAL_ERROR',
      'DATABASE_ERROR',
      'SERVICE_UNAVAILABLE',
      'AI_NOT_CONFIGURED',
    ]),
    message: z.string(),
    details: z.unknown(),
  })
  .openapi('FailureEnvelope');

/** Non-enveloped routes (specified): `{ error: <text> }`. */
export const legacyError = z.object({ error: z.string() }).openapi('LegacyError');

/** Any stored record the response schema does not spell out further: an object with an id. */
export const record = z
  .object({ id: z.uuid() })
  .catchall(z.unknown())
  .openapi('Record', { example: { id: '6f1c2b9e-4a51-4c7e-9a0d-2b8f1e3c4d5a' } });

export function successEnvelope(data: ZodType) {
  return z.object({
    success: z.literal(true),
    data,
    message: z.string().openapi({ example: 'OK' }),
  });
}

export const paginated = (item: ZodType) =>
  z.object({
    items: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
    totalPages: z.number().int(),
  });

/** A Page of a list that also pages by cursor (CursorPage of @crm/shared/pagination). */
export const cursorPaginated = (item: ZodType) =>
  paginated(item).extend({
    total: z.number().int().meta({
      description: 'Exact when totalExact; otherwise a lower bound (the count stops there)',
    }),
    totalExact: z.boolean(),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as cursor for the next page; null on the last page' }),
  });

const ERROR_EXAMPLES: Record<
  number,
  { code: string; error: string; message: string; details: unknown }
> = {
  400: {
    code: 'VALIDATION_ERROR',
    error: 'Validation failed',
    message: 'title is required',
    details: null,
  },
  401: { code: 'UNAUTHORIZED', error: 'Unauthorized', message: 'Unauthorized', details: null },
  403: { code: 'FORBIDDEN', error: 'Forbidden', message: 'Forbidden', details: null },
  404: { code: 'NOT_FOUND', error: 'Not found', message: 'Not found', details: null },
  409: { code: 'CONFLICT', error: 'Conflict', message: 'Conflict', details: null },
  413: {
    code: 'PAYLOAD_TOO_LARGE',
    error: 'Payload too large',
    message: 'Payload too large',
    details: null,
  },
  415: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    error: 'Unsupported media type',
    message: 'Unsupported media type',
    details: null,
  },
  429: {
    code: 'RATE_LIMIT_EXCEEDED',
    error: 'Too many requests',
    message: 'Rate limit exceeded; retry after 12 seconds',
    details: { retryAfter: 12 },
  },
  503: {
    code: 'SERVICE_UNAVAILABLE',
    error: 'Service unavailable',
    message: 'Service unavailable',
    details: null,
  },
};

const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed body or failed schema validation (INVALID_REQUEST, VALIDATION_ERROR, INVALID_JSON)',
  401: 'No valid session (UNAUTHORIZED)',
  403: 'Not permitted for this tenant or resource (FORBIDDEN, TENANT_ACCESS_DENIED)',
  404: 'Does not exist in this tenant (NOT_FOUND)',
  409: 'Duplicate or conflicting write (CONFLICT, ALREADY_EXISTS)',
  413: 'Body over the limit (PAYLOAD_TOO_LARGE)',
  415: 'Not a JSON body (UNSUPPORTED_MEDIA_TYPE)',
  429: 'Too many requests (RATE_LIMIT_EXCEEDED): retry after `details.retryAfter` seconds (also `Retry-After`)',
  503: 'A dependency is down (SERVICE_UNAVAILABLE)',
};

export function errorResponse(status: number, legacy = false): ResponseConfig {
  const example = ERROR_EXAMPLES[status] ?? ERROR_EXAMPLES[400]!;
  return {
    description: ERROR_TEXT[status] ?? 'Error',
    ...(status === 429
      ? {
          headers: {
            'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
          },
        }
      : {}),
    content: {
      'application/json': legacy
        ? { schema: legacyError, example: { error: example.error } }
        : { schema: failureEnvelope, example: { success: false, ...example } },
    },
  };
}

export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI style: `/api/crm/deals/{id}`. */
  path: string;
  /** The resource it is grouped under in the browser (Leads, Deals, Forms, ...). */
  tag: string;
  summary: string;
  description?: string;
  auth: Auth;
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  body?: { schema: ZodType; example?: unknown; contentType?: string; description?: string };
  /** The success response: `data` is wrapped in the success envelope unless `bare` is set. */
  success: {
    status?: number;
    description: string;
    data?: ZodType;
    bare?: ZodType;
    contentType?: string;
    example?: unknown;
  };
  /** Failure statuses besides the ones the auth brings (401 and 429 for Session routes). */
  errors?: number[];
  /** Errors come as `{ error }` (specified for non-enveloped routes). */
  legacyErrors?: boolean;
}

/** The security requirement and extra errors an auth scheme brings. */
function authOf(
  registry: OpenAPIRegistry,
  auth: Auth,
): { security: RouteConfig['security']; errors: number[] } {
  if (auth === 'public') return { security: [], errors: [429] };
  if (auth === 'session') return { security: [{ session: [] }], errors: [401, 403, 429] };
  if (auth === 'serviceHmac') return { security: [{ serviceHmac: [] }], errors: [401] };
  if (auth === 'mcpBearer') return { security: [{ mcpBearer: [] }], errors: [401, 429] };
  // Alternatives: the receiver accepts whichever provider's signature the delivery carries.
  const security = auth.signatures.map(({ provider, header, description }) => {
    const name = `${provider}Signature`;
    registry.registerComponent('securitySchemes', name, {
      type: 'apiKey',
      in: 'header',
      name: header,
      description,
    });
    return { [name]: [] };
  });
  return { security, errors: [401] };
}

/** Registers one operation: its auth, parameters, body, success and failure responses. */
export function addOperation(registry: OpenAPIRegistry, op: Operation): void {
  const { security, errors } = authOf(registry, op.auth);
  const status = op.success.status ?? 200;
  const schema = op.success.bare ?? successEnvelope(op.success.data ?? z.null());
  const responses: RouteConfig['responses'] = {
    [status]: {
      description: op.success.description,
      content: {
        [op.success.contentType ?? 'application/json']: {
          schema,
          ...(op.success.example !== undefined ? { example: op.success.example } : {}),
        },
      },
    },
  };
  for (const code of [...new Set([...(op.errors ?? []), ...errors])].sort()) {
    responses[code] = errorResponse(code, op.legacyErrors);
  }
  registry.registerPath({
    method: op.method,
    path: op.path,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security,
    request: {
      ...(op.params ? { params: op.params } : {}),
      ...(op.query ? { query: op.query } : {}),
      ...(op.headers ? { headers: op.headers } : {}),
      ...(op.body
        ? {
            body: {
              required: true,
              ...(op.body.description ? { description: op.body.description } : {}),
              content: {
                [op.body.contentType ?? 'application/json']: {
                  schema: op.body.schema,
                  ...(op.body.example !== undefined ? { example: op.body.example } : {}),
                },
              },
            },
          }
        : {}),
    },
    responses,
  });
}

/** `{ id }` as a path parameter. */
export const idParam = (name = 'id') => z.object({ [name]: z.uuid() });

/**
 * GET /health: every service's internal probe (specified:
 * `{ status, version, uptime, checks: { database, memory } }`).
 */
export const healthResponse = z
  .object({
    status: z.enum(['healthy', 'degraded', 'unhealthy']),
    version: z.string(),
    uptime: z.number(),
    checks: z.object({ database: z.unknown(), memory: z.unknown() }),
  })
  .openapi('Health');

/** GET /ready: every service's readiness probe (database, event bus, not shutting down). */
export const readinessResponse = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({
      database: z.enum(['up', 'down', 'not_configured', 'not_checked']),
      bus: z.enum(['up', 'down', 'not_configured']),
      draining: z.boolean(),
    }),
  })
  .openapi('Readiness');
