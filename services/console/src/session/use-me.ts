import { queryOptions, useQuery } from '@tanstack/react-query';
import { fetchMe, ME_KEY } from '../api/auth';

/**
 * GET /api/auth/me as a query: the layout's loader starts it (routes.tsx), the layout and every
 * screen asking for the role read it. Its answer stays current for a minute: stale at once, each
 * screen mounting under the layout asked again (a first visit to /leads asked twice in a row).
 * Every change of the session here (sign-in, sign-up, sign-out, another tenant, an accepted
 * invitation) clears or resets the cache, so it is asked again at once then; a role changed
 * elsewhere shows within a minute, and the API checks the role on every call anyway.
 */
export const meQuery = queryOptions({
  queryKey: ME_KEY,
  queryFn: ({ signal }) => fetchMe(signal),
  staleTime: 60_000,
});

/** The signed-in user, memberships, selected tenant and pending invitations (GET /api/auth/me). */
export function useMe() {
  return useQuery(meQuery);
}
