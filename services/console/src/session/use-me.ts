import { useQuery } from '@tanstack/react-query';
import { fetchMe, ME_KEY } from '../api/auth';

/** The signed-in user, memberships, selected tenant and pending invitations (GET /api/auth/me). */
export function useMe() {
  return useQuery({ queryKey: ME_KEY, queryFn: ({ signal }) => fetchMe(signal) });
}
