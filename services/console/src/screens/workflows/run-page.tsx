import { useEffect, useRef } from 'react';
import { Link, useParams } from 'react-router';
import type { RunWithSteps } from '../../api/workflows';
import { useRole } from '../../session/use-role';
import { describeError } from '../../ui/describe-error';
import { QueryStates } from '../../ui/states';
import { RunStatus } from './run-status';
import { RunSteps } from './run-steps';
import { useReplay, useRun } from './use-workflows';

/** /workflows/runs/:runId: a run, its steps, its replays, and (writers) replay. */
export function RunPage() {
  const { runId = '' } = useParams();
  const run = useRun(runId);
  return (
    <section aria-labelledby="screen-title">
      <p>
        <Link to="/workflows/runs">Back to the run history</Link>
      </p>
      <h1 id="screen-title">Run</h1>
      <QueryStates query={run} what="the run">
        {(data) => <RunDetail run={data} />}
      </QueryStates>
    </section>
  );
}

function RunDetail({ run }: { run: RunWithSteps }) {
  const { role, canWrite } = useRole();
  const replay = useReplay(run.id);
  const outcome = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (replay.isSuccess || replay.isError) outcome.current?.focus();
  }, [replay.isSuccess, replay.isError]);
  const replayable = run.status === 'failed';
  return (
    <>
      <dl className="details">
        <dt>Workflow</dt>
        <dd>
          <Link to={`/workflows/${run.workflow_id}`}>Open the workflow</Link>
        </dd>
        <dt>Status</dt>
        <dd>
          <RunStatus status={run.status} />
        </dd>
        <dt>Started</dt>
        <dd>{new Date(run.started_at).toLocaleString()}</dd>
        <dt>Event</dt>
        <dd>
          <code>{run.event_type}</code> on {run.module} record {run.record_id}
        </dd>
        <dt>Kind</dt>
        <dd>
          {run.replay_of ? (
            <>
              Replay of <Link to={`/workflows/runs/${run.replay_of}`}>the original run</Link>
            </>
          ) : run.is_test ? (
            'Test run'
          ) : (
            'Event'
          )}
        </dd>
      </dl>
      <RunSteps
        steps={run.steps}
        caption="Steps"
        action={
          canWrite
            ? (step) =>
                step.status === 'failed' ? (
                  <button
                    type="button"
                    disabled={replay.isPending}
                    onClick={() => replay.mutate(step.position)}
                  >
                    Replay step {step.position + 1}
                  </button>
                ) : (
                  '—'
                )
            : undefined
        }
      />
      {canWrite && replayable && (
        <p>
          <button
            type="button"
            disabled={replay.isPending}
            onClick={() => replay.mutate(undefined)}
          >
            {replay.isPending ? 'Replaying…' : 'Replay failed steps'}
          </button>{' '}
          <span className="muted">
            Sends them again now, with the same webhook-id so your receiver can skip a duplicate.
          </span>
        </p>
      )}
      {!canWrite && role !== undefined && replayable && (
        <p className="muted">
          Replaying a run needs the owner, admin or member role (yours: {role}).
        </p>
      )}
      <div ref={outcome} tabIndex={-1}>
        {replay.isSuccess && (
          <p role="status">
            Replayed: <RunStatus status={replay.data.status} />.{' '}
            <Link to={`/workflows/runs/${replay.data.id}`}>Open the replay</Link>
          </p>
        )}
        {replay.isError && (
          <p role="alert" className="problem">
            {describeError(replay.error)}
          </p>
        )}
      </div>
      <h2>Replays</h2>
      {run.replays.length === 0 ? (
        <p className="muted">Not replayed.</p>
      ) : (
        <ul>
          {run.replays.map((r) => (
            <li key={r.id}>
              <Link to={`/workflows/runs/${r.id}`}>
                Replay of {new Date(r.started_at).toLocaleString()}
              </Link>
              : <RunStatus status={r.status} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
