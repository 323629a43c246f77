import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { fetchLeadsPage, type LeadQuery } from '../../api/leads';

/**
 * The leads list, page after page by the API's keyset cursor (`nextCursor`), so scrolling stays
 * as fast at the millionth lead as at the first. While a new search or sort loads, the previous
 * rows stay on screen (no flash of the loading state).
 */
export function useLeads(query: LeadQuery) {
  return useInfiniteQuery({
    queryKey: ['leads', query],
    queryFn: ({ pageParam, signal }) => fetchLeadsPage(query, pageParam, signal),
    initialPageParam: null as string | null,
    placeholderData: keepPreviousData,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
