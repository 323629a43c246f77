import { useId, useState } from 'react';
import { Link, useParams } from 'react-router';
import type { Workflow } from '../../api/workflows';
import { useRole } from '../../session/use-role';
import { ConfirmDialog } from '../../ui/confirm-dialog';
import { describeError } from '../../ui/describe-error';
import { Problem } from '../../ui/problem';
import { Loading } from '../../ui/states';
import { RunHistory } from './run-history';
import { SigningSecret } from './signing-secret';
import { TestRun } from './test-run';
import { useRotateSecret, useSetEnabled, useWorkflow } from './use-workflows';

/** /workflows/:workflowId: the definition, enable/disable, secret rotation, test run, runs. */
export function WorkflowPage() {
  const { workflowId = '' } = useParams();
  const workflow = useWorkflow(workflowId);
  return (
    <section aria-labelledby="screen-title">
      <p>
        <Link to="/workflows">Back to workflows</Link>
      </p>
      {workflow.isPending ? (
        <Loading what="the workflow" />
      ) : workflow.isError ? (
        <>
          <h1 id="screen-title">Workflow</h1>
          <Problem error={workflow.error} onRetry={() => void workflow.refetch()} />
        </>
      ) : (
        <WorkflowDetail workflow={workflow.data} />
      )}
    </section>
  );
}

function WorkflowDetail({ workflow }: { workflow: Workflow }) {
  const { canWrite } = useRole();
  const setEnabled = useSetEnabled(workflow.id);
  const rotate = useRotateSecret(workflow.id);
  const [confirming, setConfirming] = useState(false);
  const headingId = useId();
  return (
    <>
      <h1 id="screen-title">{workflow.name}</h1>
      <dl className="details">
        <dt>State</dt>
        <dd>{workflow.enabled ? 'Enabled' : 'Disabled'}</dd>
        <dt>Trigger</dt>
        <dd>
          <code>{workflow.trigger.event}</code>
          {workflow.trigger.conditions.map((c, i) => (
            <span key={i}>
              {' '}
              and <code>{c.field}</code> {c.op.replace('_', ' ')}
              {c.op === 'exists' ? '' : ` ${JSON.stringify(c.value)}`}
            </span>
          ))}
        </dd>
        <dt>Webhook nodes</dt>
        <dd>
          <ol>
            {workflow.nodes.map((node, i) => (
              <li key={i}>
                {node.name ? `${node.name}: ` : ''}
                <code>
                  {node.config.method} {node.config.url}
                </code>
                {Object.keys(node.config.headers ?? {}).length > 0 &&
                  ` (headers: ${Object.keys(node.config.headers ?? {}).join(', ')})`}
              </li>
            ))}
          </ol>
        </dd>
      </dl>
      {canWrite && (
        <p className="actions">
          <Link to={`/workflows/${workflow.id}/edit`} className="button-link">
            Edit
          </Link>{' '}
          <button
            type="button"
            disabled={setEnabled.isPending}
            onClick={() => setEnabled.mutate(!workflow.enabled)}
          >
            {workflow.enabled ? 'Disable' : 'Enable'}
          </button>{' '}
          <button type="button" onClick={() => setConfirming(true)}>
            Rotate signing secret
          </button>
        </p>
      )}
      {setEnabled.isError && (
        <p role="alert" className="problem">
          {describeError(setEnabled.error)}
        </p>
      )}
      <ConfirmDialog
        open={confirming}
        title="Rotate the signing secret?"
        confirmLabel="Rotate"
        busy={rotate.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => rotate.mutate(undefined, { onSettled: () => setConfirming(false) })}
      >
        <p>The old secret stops signing at once: update your receiver with the new one.</p>
      </ConfirmDialog>
      {rotate.isSuccess && <SigningSecret secret={rotate.data.signing_secret} />}
      {rotate.isError && (
        <p role="alert" className="problem">
          {describeError(rotate.error)}
        </p>
      )}
      {canWrite && <TestRun workflow={workflow} />}
      <h2 id={headingId}>Runs</h2>
      <RunHistory workflowId={workflow.id} />
    </>
  );
}
