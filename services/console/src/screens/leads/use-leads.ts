import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { fetchLeadsPage, type LeadQuery } from '../../api/leads';

/**
 * The leads list, page after page (`page`/`totalPages`: the API's Page shape). While a new
 * search or sort loads, the previous rows stay on screen (no flash of the loading state).
 */
export function useLeads(query: LeadQuery) {
  return useInfiniteQuery({
    queryKey: ['leads', query],
    queryFn: ({ pageParam, signal }) => fetchLeadsPage(query, pageParam, signal),
    initialPageParam: 1,
    placeholderData: keepPreviousData,
    getNextPageParam: (last) => (last.page < last.totalPages ? last.page + 1 : undefined),
  });
}
