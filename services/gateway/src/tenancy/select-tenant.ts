import { errors, type AppError } from '@crm/shared/http';
import type { Membership } from './cross-tenant-lookups';

export interface TenantRequest {
  /** The `x-tenant-id` request header. */
  header?: string;
  /** The active-tenant cookie. */
  cookie?: string;
}

export type TenantSelection = { ok: true; membership: Membership } | { ok: false; error: AppError };

/**
 * The specified tenant selection order: header `x-tenant-id`, else the active-tenant cookie, else
 * the most recently joined active membership. A header or cookie naming a tenant where the user has
 * no active membership is refused, never silently replaced by another tenant.
 */
export function selectTenant(memberships: Membership[], request: TenantRequest): TenantSelection {
  const active = memberships.filter((m) => m.status === 'active');
  if (active.length === 0) {
    return {
      ok: false,
      error: errors.noActiveMembership('You have no active membership in any tenant'),
    };
  }
  const named = request.header ?? request.cookie;
  if (named !== undefined) {
    const membership = active.find((m) => m.tenantId === named.trim().toLowerCase());
    if (!membership) {
      const source =
        request.header !== undefined ? 'the x-tenant-id header' : 'the active-tenant cookie';
      return {
        ok: false,
        error: errors.tenantAccessDenied(
          `You are not an active member of the tenant named by ${source}`,
        ),
      };
    }
    return { ok: true, membership };
  }
  // listMemberships() returns the most recently joined first.
  return { ok: true, membership: active[0] };
}
