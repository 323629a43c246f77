import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { fetchActivitiesPage, type ActivityQuery } from '../../api/activities';

/** The activity list, page after page by number; the previous rows stay while a new one loads. */
export function useActivities(query: ActivityQuery) {
  return useInfiniteQuery({
    queryKey: ['activities', query],
    queryFn: ({ pageParam, signal }) => fetchActivitiesPage(query, pageParam, signal),
    initialPageParam: 1,
    placeholderData: keepPreviousData,
    getNextPageParam: (last) => (last.page < last.totalPages ? last.page + 1 : undefined),
  });
}
