import { errors } from '@crm/shared/http';
import { requireRole } from '@crm/shared/identity';
import type { Request } from 'express';
import { z } from 'zod';

/**
 * Who may do what under /api/integrations (docs/integrations.md): connecting, changing and
 * removing integrations, and reading raw ledger payloads, is for owners and admins; every
 * member (viewers included) may list the settings and the ledger, which hold no secret.
 * Viewers' writes are already refused by forbidViewerWrites() before this check.
 */
export const canManageIntegrations = requireRole('owner', 'admin');

const uuid = z.uuid();

/** Whether `value` is a uuid: only one can name a row (anything else never reaches Postgres). */
export function isUuid(value: string): boolean {
  return uuid.safeParse(value).success;
}

/**
 * The `:id` of a route. Something that is not a uuid cannot name a row, so it is a 404 like an
 * unknown id (and never reaches Postgres as a cast error).
 */
export function idParam(req: Request, notFoundMessage: string): string {
  const id = req.params.id;
  if (typeof id !== 'string' || !isUuid(id)) throw errors.notFound(notFoundMessage);
  return id;
}

/** A request body: a JSON object with exactly these keys (unknown keys are refused). */
export function bodySchema<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'invalid_type' ? 'the body must be a JSON object' : undefined,
  });
}

/** A string field, with "is required" when it is missing and "must be a string" otherwise. */
export function stringField(field: string) {
  return z.string({
    error: (issue) =>
      issue.input === undefined ? `${field} is required` : `${field} must be a string`,
  });
}

/** A provider-side identifier: no spaces anywhere (surrounding ones are trimmed), bounded. */
export function identifierField(field: string, maxLength: number) {
  return stringField(field)
    .trim()
    .min(1, { message: `${field} is required` })
    .max(maxLength, { message: `${field} must be at most ${maxLength} characters` })
    .regex(/^\S+$/, { message: `${field} must not contain spaces` });
}

/** A connection's display name: 1 to 200 characters, trimmed. */
export const nameField = stringField('name')
  .trim()
  .min(1, { message: 'name must not be empty (send null to clear it)' })
  .max(200, { message: 'name must be at most 200 characters' });

/**
 * A webhook signing secret as the provider's dashboard shows it. Kept byte for byte (it keys
 * an HMAC), so surrounding whitespace — always a copy-paste slip — is refused, not trimmed.
 */
export function webhookSecretField(nullMessage?: string) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? 'webhookSecret is required'
          : issue.input === null && nullMessage
            ? nullMessage
            : 'webhookSecret must be a string',
    })
    .min(1, { message: 'webhookSecret must not be empty' })
    .max(1000, { message: 'webhookSecret must be at most 1000 characters' })
    .refine((secret) => secret.trim() === secret, {
      message: 'webhookSecret must not start or end with whitespace',
    });
}

/** A PATCH body must change something: `{}` is a 400, not a silent no-op. */
export function someChange<S extends z.ZodType<Record<string, unknown>>>(schema: S) {
  return schema.refine((change) => Object.values(change).some((value) => value !== undefined), {
    message: 'give at least one field to change',
  });
}

/**
 * 409 for an identifier this tenant has already connected. Another tenant's claim on the same
 * identifier is no conflict (claims are proven before deliveries are routed), so registering
 * never tells a tenant whether anyone else claims an identifier.
 */
export function alreadyConnected(what: string, details: Record<string, string>) {
  return errors.alreadyExists(`${what} is already connected in this workspace`, details);
}
