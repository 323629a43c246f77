import { Link } from 'react-router';
import type { Workflow } from '../../api/workflows';
import { useRole } from '../../session/use-role';
import { QueryStates } from '../../ui/states';
import { RunStatus } from './run-status';
import { useLastRun, useWorkflows } from './use-workflows';

/** Workflows: the tenant's workflows with their state and last run; writers add one. */
export function WorkflowsScreen() {
  const { canWrite } = useRole();
  const workflows = useWorkflows();
  const rows = workflows.data?.pages.flatMap((page) => page.items) ?? [];
  return (
    <section aria-labelledby="screen-title">
      <div className="screen-heading">
        <h1 id="screen-title">Workflows</h1>
        <Link to="/workflows/runs">Run history</Link>
        {canWrite && (
          <Link to="/workflows/new" className="button-link">
            New workflow
          </Link>
        )}
      </div>
      <div aria-busy={workflows.isFetching}>
        <QueryStates
          query={workflows}
          what="workflows"
          isEmpty={() => rows.length === 0}
          empty={
            <p>
              No workflows yet.{' '}
              {canWrite
                ? 'Create one with New workflow: pick an event, then the webhooks to call.'
                : 'An owner, admin or member of the tenant can create one.'}
            </p>
          }
        >
          {() => (
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Workflows list</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Trigger</th>
                    <th scope="col">Nodes</th>
                    <th scope="col">Enabled</th>
                    <th scope="col">Last run</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((workflow) => (
                    <WorkflowRow key={workflow.id} workflow={workflow} />
                  ))}
                </tbody>
              </table>
              {workflows.hasNextPage && (
                <button
                  type="button"
                  disabled={workflows.isFetchingNextPage}
                  onClick={() => void workflows.fetchNextPage()}
                >
                  Load more workflows
                </button>
              )}
            </div>
          )}
        </QueryStates>
      </div>
    </section>
  );
}

function WorkflowRow({ workflow }: { workflow: Workflow }) {
  const last = useLastRun(workflow.id);
  return (
    <tr>
      <td>
        <Link to={`/workflows/${workflow.id}`}>{workflow.name}</Link>
      </td>
      <td>
        <code>{workflow.trigger.event}</code>
        {workflow.trigger.conditions.length > 0 &&
          ` (${workflow.trigger.conditions.length} condition${workflow.trigger.conditions.length === 1 ? '' : 's'})`}
      </td>
      <td>{workflow.nodes.length}</td>
      <td>{workflow.enabled ? 'Enabled' : 'Disabled'}</td>
      <td>
        {last.isPending ? (
          '…'
        ) : last.isError ? (
          'unknown'
        ) : last.data ? (
          <Link to={`/workflows/runs/${last.data.id}`}>
            <RunStatus status={last.data.status} />{' '}
            {new Date(last.data.started_at).toLocaleString()}
          </Link>
        ) : (
          'Never'
        )}
      </td>
    </tr>
  );
}
