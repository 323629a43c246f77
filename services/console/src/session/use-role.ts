import { useMe } from './use-me';

/** Roles that may manage members (GET /api/auth/members answers them only) and web forms. */
const MANAGERS = new Set(['owner', 'admin']);

/**
 * The user's role in the selected tenant, from GET /api/auth/me (the one answer the layout
 * already waits for), and what it allows. Every record screen asks here before showing a write
 * control: a viewer may only read. The API refuses a viewer's write anyway (403); hiding the
 * buttons only spares them a refusal.
 */
export function useRole() {
  const me = useMe();
  const role = me.data?.selectedTenant?.role;
  return {
    role,
    userId: me.data?.user.id,
    /** Create, change, delete: any role but viewer (and nothing while the role is unknown). */
    canWrite: role !== undefined && role !== 'viewer',
    canListMembers: canManage(role),
    /** Web forms are managed by owners and admins only (docs/forms.md). */
    canManageForms: canManage(role),
  };
}

/** Whether `role` is an owner's or an admin's. */
export function canManage(role: string | undefined): boolean {
  return role !== undefined && MANAGERS.has(role);
}
