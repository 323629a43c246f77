import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createWorkflow,
  fetchRun,
  fetchRunsPage,
  fetchWorkflow,
  fetchWorkflowsPage,
  replayRun,
  rotateSecret,
  testWorkflow,
  updateWorkflow,
  type RunFilter,
  type TestRunOn,
} from '../../api/workflows';
import { fetchEventsPage } from '../../api/events';
import type { WorkflowInput } from '../../../../../libs/shared/src/automation/workflow-rules';

/** The workflow list, page after page by cursor. */
export function useWorkflows() {
  return useInfiniteQuery({
    queryKey: ['workflows'],
    queryFn: ({ pageParam, signal }) => fetchWorkflowsPage(pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useWorkflow(id: string) {
  return useQuery({
    queryKey: ['workflow', id],
    enabled: id !== '',
    queryFn: ({ signal }) => fetchWorkflow(id, signal),
    select: (body) => body.data.workflow,
  });
}

/** A workflow's newest run (the list's "Last run" column), or null when it never ran. */
export function useLastRun(workflowId: string) {
  return useQuery({
    queryKey: ['runs', workflowId, 'last'],
    queryFn: ({ signal }) => fetchRunsPage(workflowId, {}, undefined, 1, signal),
    select: (page) => page.items[0] ?? null,
  });
}

/** The run history (one workflow's, or all when `workflowId` is undefined), by cursor. */
export function useRuns(workflowId: string | undefined, filter: RunFilter) {
  return useInfiniteQuery({
    queryKey: ['runs', workflowId ?? 'all', filter],
    queryFn: ({ pageParam, signal }) =>
      fetchRunsPage(workflowId, filter, pageParam, undefined, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useRun(runId: string) {
  return useQuery({
    queryKey: ['run', runId],
    queryFn: ({ signal }) => fetchRun(runId, signal),
    select: (body) => body.data.run,
  });
}

/** Creates a workflow (the answer carries its secret, shown once) or changes one. */
export function useSaveWorkflow(id: string | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (definition: WorkflowInput) =>
      id
        ? { ...(await updateWorkflow(id, definition)).data, signing_secret: undefined }
        : (await createWorkflow(definition)).data,
    onSuccess: async (answer) => {
      queryClient.setQueryData(['workflow', answer.workflow.id], {
        data: { workflow: answer.workflow },
      });
      await queryClient.invalidateQueries({ queryKey: ['workflows'] });
    },
  });
}

export function useSetEnabled(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) => updateWorkflow(id, { enabled }),
    onSuccess: async (answer) => {
      queryClient.setQueryData(['workflow', id], answer);
      await queryClient.invalidateQueries({ queryKey: ['workflows'] });
    },
  });
}

export function useRotateSecret(id: string) {
  return useMutation({ mutationFn: () => rotateSecret(id).then((answer) => answer.data) });
}

export function useTestRun(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (on: TestRunOn) => testWorkflow(id, on).then((answer) => answer.data.run),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['runs'] }),
  });
}

/**
 * The tenant's recent events, newest first, of one `type` or all (''), page after page: what
 * a test run may run on. The Events screen's query (same key), so each reuses the other's.
 */
export function useRecentEvents(type: string) {
  return useInfiniteQuery({
    queryKey: ['events', type],
    queryFn: ({ pageParam, signal }) => fetchEventsPage(type, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useReplay(runId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (position?: number) => replayRun(runId, position).then((a) => a.data.run),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['run', runId] });
      await queryClient.invalidateQueries({ queryKey: ['runs'] });
    },
  });
}
