import type { RunStep } from '../../api/workflows';

/**
 * A run's steps: position, node, status, response status, duration and the step's exact
 * message (`Webhook <METHOD> <URL> → <status>`). `action` adds a cell per step (a replay).
 */
export function RunSteps({
  steps,
  caption,
  action,
}: {
  steps: RunStep[];
  caption: string;
  action?: (step: RunStep) => React.ReactNode;
}) {
  if (steps.length === 0) {
    return <p className="muted">No steps recorded (the run may still be running).</p>;
  }
  return (
    <div className="table-wrap">
      <table className="steps">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Node</th>
            <th scope="col">Status</th>
            <th scope="col">Response</th>
            <th scope="col">Duration</th>
            <th scope="col">Message</th>
            {action && <th scope="col">Action</th>}
          </tr>
        </thead>
        <tbody>
          {steps.map((step) => (
            <tr key={step.position}>
              <td>{step.position + 1}</td>
              <td>{step.node_name ?? step.node_type}</td>
              <td>{step.status}</td>
              <td>{step.response_status ?? '—'}</td>
              <td>{step.duration_ms} ms</td>
              <td>
                <code>{step.message}</code>
              </td>
              {action && <td>{action(step)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
