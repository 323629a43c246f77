import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { fetchContactsPage, type ContactQuery } from '../../api/contacts';

/**
 * The contact list, page after page by the API's keyset cursor (`nextCursor`). While a new
 * search or sort loads, the previous rows stay on screen (no flash of the loading state).
 */
export function useContacts(query: ContactQuery) {
  return useInfiniteQuery({
    queryKey: ['contacts', query],
    queryFn: ({ pageParam, signal }) => fetchContactsPage(query, pageParam, signal),
    initialPageParam: null as string | null,
    placeholderData: keepPreviousData,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
