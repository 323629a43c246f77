import { useMe } from './use-me';

/**
 * The signed-in user's role in the selected tenant (from GET /api/auth/me), undefined while it
 * loads. The server decides every request; this only hides controls a role cannot use.
 */
export function useTenantRole(): string | undefined {
  return useMe().data?.selectedTenant?.role;
}

/** Web forms are managed by owners and admins only (docs/forms.md). */
export function canManageForms(role: string | undefined): boolean {
  return role === 'owner' || role === 'admin';
}
