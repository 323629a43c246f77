import { queryOptions, useQuery } from '@tanstack/react-query';
import { fetchMe, ME_KEY } from '../api/auth';

/**
 * GET /api/auth/me as a query: the layout's loader starts it (routes.tsx), the layout and every
 * screen asking for the role read it. An answer of the last few seconds is taken as it is:
 * stale at once, the screen mounting under the layout just after the layout got its answer
 * asked again (a first visit to /leads asked twice in a row). Opening another screen later
 * asks again, as before, so the header's pending invitations stay current; the Invitations
 * screen always asks (`fresh`). Every change of the session here (sign-in, sign-up, sign-out,
 * another tenant, an accepted invitation) clears or resets the cache anyway.
 */
export const meQuery = queryOptions({
  queryKey: ME_KEY,
  queryFn: ({ signal }) => fetchMe(signal),
  staleTime: 5_000,
});

/** The signed-in user, memberships, selected tenant and pending invitations (GET /api/auth/me). */
export function useMe({ fresh = false }: { fresh?: boolean } = {}) {
  return useQuery({ ...meQuery, refetchOnMount: fresh ? 'always' : true });
}
