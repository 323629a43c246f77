import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createDeal,
  fetchDeal,
  fetchDeals,
  moveDeal,
  updateDeal,
  type Deal,
  type DealChange,
  type DealFilters,
  type DealStage,
  type NewDeal,
} from '../../api/deals';
import { fetchMembers } from '../../api/members';
import { useRole } from '../../session/use-role';

/** The board's key, and the prefix of every deals query (the list's, a lead's deals). */
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

/** The deals list with its filters (stage, owner): GET /api/crm/deals?stage=&assigned_to=. */
export function useDealList(filters: DealFilters) {
  return useQuery({
    queryKey: [...DEALS_KEY, 'list', filters],
    queryFn: ({ signal }) => fetchDeals(signal, filters),
    select: (body) => body.deals,
  });
}

/** One deal (GET /api/crm/deals/:id). */
export function useDeal(id: string) {
  return useQuery({
    queryKey: ['deal', id],
    queryFn: ({ signal }) => fetchDeal(id, signal),
    select: (body) => body.data.deal,
  });
}

/** Changes a deal (PATCH), then every deals query (board, list, a lead's) is asked again. */
export function useUpdateDeal() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: string; change: DealChange }) => updateDeal(id, change),
    onSuccess: async (deal) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: DEALS_KEY }),
        queryClient.invalidateQueries({ queryKey: ['deal', deal.id] }),
        queryClient.invalidateQueries({ queryKey: ['lead-timeline'] }),
      ]);
    },
  });
}

/**
 * Who may own a deal, as [user id, name] for the owner filter and select: the tenant's active
 * members when the role may list them (owners and admins), else only the user themself.
 */
export function useOwners(): {
  owners: Array<readonly [string, string]>;
  name: (id: string) => string;
} {
  const { canListMembers, userId } = useRole();
  const members = useQuery({
    queryKey: ['members'],
    queryFn: ({ signal }) => fetchMembers(signal),
    enabled: canListMembers,
    select: (body) => body.data.members,
  });
  const owners: Array<readonly [string, string]> = (members.data ?? [])
    .filter((m) => m.userId && m.status === 'active')
    .map(
      (m) =>
        [
          m.userId as string,
          m.userId === userId ? `${m.name ?? m.email} (you)` : (m.name ?? m.email),
        ] as const,
    );
  if (userId && !owners.some(([id]) => id === userId)) owners.unshift([userId, 'You']);
  const name = (id: string) =>
    owners.find(([owner]) => owner === id)?.[1] ?? `Member ${id.slice(0, 8)}`;
  return { owners, name };
}
