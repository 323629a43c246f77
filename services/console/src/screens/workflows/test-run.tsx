import { useId, useState } from 'react';
import { Link } from 'react-router';
import type { Workflow } from '../../api/workflows';
import { describeError } from '../../ui/describe-error';
import { RecentEventPicker } from './recent-event-picker';
import { RunStatus } from './run-status';
import { RunSteps } from './run-steps';
import { useTestRun } from './use-workflows';

const SAMPLE = JSON.stringify(
  { id: 'sample-1', email: 'ann@example.com', first_name: 'Ann', status: 'new' },
  null,
  2,
);

/** What the test run runs on. */
type Source = 'sample' | 'event';
const SOURCES: ReadonlyArray<readonly [Source, string]> = [
  ['sample', 'Sample record'],
  ['event', 'Recent event'],
];

/**
 * A test run: the workflow once now on a sample record, or on one of the tenant's recent
 * events as if it had triggered the workflow (recorded as a test run either way), showing each
 * step's request, response status, duration and message.
 */
export function TestRun({ workflow }: { workflow: Workflow }) {
  const id = useId();
  const [source, setSource] = useState<Source>('sample');
  const [record, setRecord] = useState(SAMPLE);
  const [module, setModule] = useState(`${workflow.trigger.event.split('.')[0]}s`);
  const [invalid, setInvalid] = useState<string>();
  const [eventId, setEventId] = useState<string>();
  const test = useTestRun(workflow.id);
  const run = () => {
    if (source === 'event') {
      if (eventId) test.mutate({ eventId });
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(record);
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setInvalid('The sample record must be a JSON object, e.g. { "email": "ann@example.com" }');
      return;
    }
    setInvalid(undefined);
    test.mutate({ module: module.trim() || undefined, record: parsed });
  };
  return (
    <section aria-labelledby={`${id}-title`} className="test-run">
      <h2 id={`${id}-title`}>Test run</h2>
      <p className="muted">
        Runs the workflow once now on a sample record, or on one of the recent events as if it had
        just happened: its webhooks are really sent.
      </p>
      <fieldset className="filters">
        <legend>Run on</legend>
        {SOURCES.map(([value, label]) => (
          <label key={value} className="choice">
            <input
              type="radio"
              name={`${id}-source`}
              value={value}
              checked={source === value}
              onChange={() => setSource(value)}
            />
            {label}
          </label>
        ))}
      </fieldset>
      {source === 'event' ? (
        <RecentEventPicker trigger={workflow.trigger.event} eventId={eventId} onPick={setEventId} />
      ) : (
        <>
          <div className="field">
            <label htmlFor={`${id}-module`}>Module</label>
            <input id={`${id}-module`} value={module} onChange={(e) => setModule(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${id}-record`}>Sample record (JSON)</label>
            <textarea
              id={`${id}-record`}
              rows={6}
              cols={60}
              value={record}
              aria-invalid={invalid ? true : undefined}
              aria-describedby={invalid ? `${id}-invalid` : undefined}
              onChange={(e) => setRecord(e.target.value)}
            />
            {invalid && (
              <p id={`${id}-invalid`} className="field-error">
                {invalid}
              </p>
            )}
          </div>
        </>
      )}
      <button
        type="button"
        disabled={test.isPending || (source === 'event' && !eventId)}
        onClick={run}
      >
        {test.isPending ? 'Running…' : 'Run test'}
      </button>
      {test.isError && (
        <p role="alert" className="problem">
          {describeError(test.error)}
        </p>
      )}
      {test.isSuccess && (
        <div role="status">
          <p>
            Test run on <code>{test.data.event_type}</code> ({test.data.module}{' '}
            {test.data.record_id}): <RunStatus status={test.data.status} />.{' '}
            <Link to={`/workflows/runs/${test.data.id}`}>Open the run</Link>
          </p>
          <RunSteps steps={test.data.steps} caption="Test run steps" />
        </div>
      )}
    </section>
  );
}
