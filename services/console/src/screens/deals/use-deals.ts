import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createDeal,
  fetchDeals,
  moveDeal,
  type Deal,
  type DealStage,
  type NewDeal,
} from '../../api/deals';

export const DEALS_KEY = ['deals'] as const;

/** The tenant's deals (GET /api/crm/deals), newest first. */
export function useDeals() {
  return useQuery({
    queryKey: DEALS_KEY,
    queryFn: ({ signal }) => fetchDeals(signal),
    select: (body) => body.deals,
  });
}

/**
 * Moves a deal to another stage (PATCH): the board shows the move at once and puts the card
 * back where it was when the server refuses it; either way the list is asked for again.
 */
export function useMoveDeal() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ deal, stage }: { deal: Deal; stage: DealStage }) => moveDeal(deal.id, stage),
    onMutate: async ({ deal, stage }) => {
      await queryClient.cancelQueries({ queryKey: DEALS_KEY });
      const before = queryClient.getQueryData<{ deals: Deal[] }>(DEALS_KEY);
      queryClient.setQueryData<{ deals: Deal[] }>(
        DEALS_KEY,
        (old) => old && { deals: old.deals.map((d) => (d.id === deal.id ? { ...d, stage } : d)) },
      );
      return { before };
    },
    onError: (_error, _move, context) => {
      if (context?.before) queryClient.setQueryData(DEALS_KEY, context.before);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: DEALS_KEY }),
  });
}

/** Creates a deal (POST), then the board asks for the list again. */
export function useCreateDeal() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deal: NewDeal) => createDeal(deal),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: DEALS_KEY }),
  });
}
