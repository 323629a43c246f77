import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createLead, deleteLead, updateLead, type LeadFields } from '../../api/leads';

/**
 * The writes on leads. Each one, once answered, has the list asked for again (every sort and
 * filter of it: the `leads` prefix), so the table never shows a lead as it was.
 */
export function useLeadWrites() {
  const queryClient = useQueryClient();
  const refreshList = () => queryClient.invalidateQueries({ queryKey: ['leads'] });
  const create = useMutation({
    mutationFn: (fields: Partial<LeadFields>) => createLead(fields),
    onSuccess: refreshList,
  });
  const update = useMutation({
    mutationFn: ({ id, change }: { id: string; change: Partial<LeadFields> }) =>
      updateLead(id, change),
    onSuccess: async (_lead, { id }) => {
      await Promise.all([
        refreshList(),
        queryClient.invalidateQueries({ queryKey: ['lead', id] }),
        // Orders, payments and conversations find a lead by its email: a new one, new items.
        queryClient.invalidateQueries({ queryKey: ['lead-timeline', id] }),
      ]);
    },
  });
  // The deleted lead's own cached answers are left to expire unused: dropping them while its
  // panel is still on screen (it closes just after) has the panel ask for the lead again, and
  // be answered 404. Opening its address again asks anyway, and says it is gone.
  const remove = useMutation({
    mutationFn: (id: string) => deleteLead(id),
    onSuccess: refreshList,
  });
  return { create, update, remove };
}
