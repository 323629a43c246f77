import { useId, useState } from 'react';
import { Link } from 'react-router';
import type { RunFilter, RunStatus as Status } from '../../api/workflows';
import { QueryStates } from '../../ui/states';
import { RunStatus } from './run-status';
import { useRuns } from './use-workflows';

/** `datetime-local` text (the user's time zone) -> ISO, or undefined when empty. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

/**
 * The run history: one workflow's runs, or all workflows' (`workflowId` undefined), newest
 * first, filtered by status and start time, a page at a time by cursor. Each run carries its
 * workflow's name, so every row is named whatever the number of workflows.
 */
export function RunHistory({ workflowId }: { workflowId?: string }) {
  const id = useId();
  const [status, setStatus] = useState<Status | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const filter: RunFilter = { status: status || undefined, from: instant(from), to: instant(to) };
  const runs = useRuns(workflowId, filter);
  const rows = runs.data?.pages.flatMap((page) => page.items) ?? [];
  const total = runs.data?.pages[0];
  return (
    <div>
      <fieldset className="filters">
        <legend>Filter runs</legend>
        <label htmlFor={`${id}-status`}>Status</label>
        <select
          id={`${id}-status`}
          value={status}
          onChange={(e) => setStatus(e.target.value as Status | '')}
        >
          <option value="">Any</option>
          <option value="failed">Failed</option>
          <option value="success">Succeeded</option>
          <option value="running">Running</option>
        </select>
        <label htmlFor={`${id}-from`}>Started from</label>
        <input
          id={`${id}-from`}
          type="datetime-local"
          value={from}
          onChange={(e) => setFrom(e.target.value)}
        />
        <label htmlFor={`${id}-to`}>Started before</label>
        <input
          id={`${id}-to`}
          type="datetime-local"
          value={to}
          onChange={(e) => setTo(e.target.value)}
        />
      </fieldset>
      <div aria-busy={runs.isFetching}>
        <QueryStates
          query={runs}
          what="runs"
          isEmpty={() => rows.length === 0}
          empty={
            <p>
              {status || from || to
                ? 'No runs match these filters.'
                : 'No runs yet: a workflow runs when its event happens, or on a test run.'}
            </p>
          }
        >
          {() => (
            <div className="table-wrap">
              <p role="status" className="muted">
                {rows.length} of {total?.totalExact ? total.total : `${total?.total}+`} runs shown
              </p>
              <table>
                <caption className="visually-hidden">Runs</caption>
                <thead>
                  <tr>
                    <th scope="col">Started</th>
                    {!workflowId && <th scope="col">Workflow</th>}
                    <th scope="col">Status</th>
                    <th scope="col">Event</th>
                    <th scope="col">Record</th>
                    <th scope="col">Kind</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((run) => (
                    <tr key={run.id}>
                      <td>
                        <Link to={`/workflows/runs/${run.id}`}>
                          {new Date(run.started_at).toLocaleString()}
                        </Link>
                      </td>
                      {!workflowId && (
                        <td>
                          <Link to={`/workflows/${run.workflow_id}`}>{run.workflow_name}</Link>
                        </td>
                      )}
                      <td>
                        <RunStatus status={run.status} />
                      </td>
                      <td>
                        <code>{run.event_type}</code>
                      </td>
                      <td>{run.record_id}</td>
                      <td>{run.replay_of ? 'Replay' : run.is_test ? 'Test run' : 'Event'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {runs.hasNextPage && (
                <button
                  type="button"
                  disabled={runs.isFetchingNextPage}
                  onClick={() => void runs.fetchNextPage()}
                >
                  Load more runs
                </button>
              )}
            </div>
          )}
        </QueryStates>
      </div>
    </div>
  );
}

/** /workflows/runs: the history across workflows. */
export function RunHistoryScreen() {
  return (
    <section aria-labelledby="screen-title">
      <p>
        <Link to="/workflows">Back to workflows</Link>
      </p>
      <h1 id="screen-title">Run history</h1>
      <RunHistory />
    </section>
  );
}
