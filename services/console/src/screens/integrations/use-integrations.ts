import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import {
  changeIntegrationRow,
  createIntegrationRow,
  deleteIntegrationRow,
  fetchDeliveriesPage,
  fetchDelivery,
  fetchIntegrationRows,
  fetchReceivers,
  reprocessDelivery,
  type DeliveryQuery,
  type IntegrationPath,
} from '../../api/integrations';

export function useReceivers() {
  return useQuery({
    queryKey: ['integrations', 'receivers'],
    queryFn: ({ signal }) => fetchReceivers(signal),
    select: (body) => body.data.receivers,
  });
}

export function useIntegrationRows(path: IntegrationPath) {
  return useQuery({
    queryKey: ['integrations', path],
    queryFn: ({ signal }) => fetchIntegrationRows(path, signal),
  });
}

/** Connect, change and remove one kind; its list is asked for again after each. */
export function useIntegrationWrites(path: IntegrationPath) {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['integrations', path] });
  return {
    create: useMutation({
      mutationFn: (body: Record<string, unknown>) => createIntegrationRow(path, body),
      onSuccess: refresh,
    }),
    change: useMutation({
      mutationFn: ({ id, body }: { id: string; body: Record<string, unknown> }) =>
        changeIntegrationRow(path, id, body),
      onSuccess: refresh,
    }),
    remove: useMutation({
      mutationFn: (id: string) => deleteIntegrationRow(path, id),
      onSuccess: refresh,
    }),
  };
}

/** The delivery log, page after page by the API's keyset cursor. */
export function useDeliveries(query: DeliveryQuery) {
  return useInfiniteQuery({
    queryKey: ['deliveries', query],
    queryFn: ({ pageParam, signal }) => fetchDeliveriesPage(query, pageParam, signal),
    initialPageParam: null as string | null,
    placeholderData: keepPreviousData,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useDelivery(id: string) {
  return useQuery({
    queryKey: ['delivery', id],
    queryFn: ({ signal }) => fetchDelivery(id, signal),
    select: (body) => body.data.event,
    retry: false,
  });
}

/** Re-processes a delivery; the delivery and the log are asked for again. */
export function useReprocess(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => reprocessDelivery(id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['delivery', id] });
      await queryClient.invalidateQueries({ queryKey: ['deliveries'] });
    },
  });
}
