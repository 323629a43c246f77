import {
  keepPreviousData,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import {
  createForm,
  fetchForm,
  fetchFormsPage,
  fetchSubmissionsPage,
  updateForm,
  type FormDefinition,
  type FormQuery,
} from '../../api/forms';

/** The form list, page after page by number; the previous rows stay while a new sort loads. */
export function useForms(query: FormQuery) {
  return useInfiniteQuery({
    queryKey: ['forms', query],
    queryFn: ({ pageParam, signal }) => fetchFormsPage(query, pageParam, signal),
    initialPageParam: 1,
    placeholderData: keepPreviousData,
    getNextPageParam: (last) => (last.page < last.totalPages ? last.page + 1 : undefined),
  });
}

/** One form; none asked for without an id (a new form). */
export function useForm(id: string) {
  return useQuery({
    queryKey: ['form', id],
    enabled: id !== '',
    queryFn: ({ signal }) => fetchForm(id, signal),
    select: (body) => body.data.form,
  });
}

export function useSubmissions(formId: string) {
  return useInfiniteQuery({
    queryKey: ['form', formId, 'submissions'],
    queryFn: ({ pageParam, signal }) => fetchSubmissionsPage(formId, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.page < last.totalPages ? last.page + 1 : undefined),
  });
}

/** Creates a form (POST) or changes one (PATCH); the list and the form are asked for again. */
export function useSaveForm(id: string | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (definition: FormDefinition) => {
      if (!id) return createForm(definition);
      const { slug: _slug, ...change } = definition;
      return updateForm(id, change);
    },
    onSuccess: async (answer) => {
      queryClient.setQueryData(['form', answer.data.form.id], answer);
      await queryClient.invalidateQueries({ queryKey: ['forms'] });
    },
  });
}
