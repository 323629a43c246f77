import { randomBytes } from 'node:crypto';
import { hashPassword } from '@crm/shared/crypto';
import { withSystemScope, type Database } from '@crm/shared/db';
import { errors } from '@crm/shared/http';
import type { Kysely } from 'kysely';
import { insertAccount } from './accounts.repository';

export interface SignUpInput {
  email: string;
  password: string;
  name?: string;
  tenantName: string;
}

export interface NewAccount {
  user: { id: string; email: string; name: string | null };
  tenant: { id: string; slug: string; name: string; plan: string };
}

/** `Acme GmbH & Co.` -> `acme-gmbh-co`; what is left empty becomes `tenant`. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50)
    .replace(/-+$/g, '');
  return slug || 'tenant';
}

function isUniqueViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && e.constraint === constraint;
}

/**
 * Creates the user, their tenant (a unique slug derived from its name) and an active `owner`
 * membership in one transaction: all three or nothing.
 */
export async function signUp(db: Kysely<Database>, input: SignUpInput): Promise<NewAccount> {
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  const base = slugify(input.tenantName);
  for (let attempt = 0; ; attempt++) {
    const slug = attempt === 0 ? base : `${base.slice(0, 43)}-${randomBytes(3).toString('hex')}`;
    try {
      return await withSystemScope(db, (trx) =>
        insertAccount(trx, {
          email,
          passwordHash,
          name: input.name?.trim() || null,
          tenantSlug: slug,
          tenantName: input.tenantName.trim(),
        }),
      );
    } catch (err) {
      if (isUniqueViolation(err, 'users_email_unique')) {
        throw errors.alreadyExists('An account with this email already exists');
      }
      // Another tenant has this slug: try again with a random suffix.
      if (isUniqueViolation(err, 'tenants_slug_key') && attempt < 5) continue;
      throw err;
    }
  }
}
