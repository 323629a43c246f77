import { infiniteQueryOptions, keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { fetchLeadsPage, type LeadQuery } from '../../api/leads';

/**
 * The leads list, page after page by the API's keyset cursor (`nextCursor`), so scrolling stays
 * as fast at the millionth lead as at the first. While a new search or sort loads, the previous
 * rows stay on screen (no flash of the loading state), and the request of a search typed past
 * is cancelled (its signal aborts the fetch once no screen waits for it). An answer of the last
 * few seconds is shown without asking again: the route's loader asks for the opening page
 * while the screen's code is still loading (routes.tsx), and the screen takes that answer
 * instead of asking for it a second time as it mounts.
 */
export function leadsQuery(query: LeadQuery) {
  return infiniteQueryOptions({
    queryKey: ['leads', query],
    queryFn: ({ pageParam, signal }) => fetchLeadsPage(query, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    staleTime: 5_000,
  });
}

export function useLeads(query: LeadQuery) {
  return useInfiniteQuery({ ...leadsQuery(query), placeholderData: keepPreviousData });
}
