import { useInfiniteQuery } from '@tanstack/react-query';
import { fetchLeadsPage, type LeadQuery } from '../../api/leads';

/** The leads list, page after page (`page`/`totalPages`: the API's Page shape). */
export function useLeads(query: LeadQuery) {
  return useInfiniteQuery({
    queryKey: ['leads', query],
    queryFn: ({ pageParam, signal }) => fetchLeadsPage(query, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.page < last.totalPages ? last.page + 1 : undefined),
  });
}
