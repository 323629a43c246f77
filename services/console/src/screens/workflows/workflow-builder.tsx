import { useEffect, useId, useRef, useState } from 'react';
import { useFieldArray, useForm, type FieldErrors } from 'react-hook-form';
import { Link, useNavigate, useParams } from 'react-router';
import { PLATFORM_EVENT_TYPES } from '../../../../../libs/shared/src/events/event-types';
import {
  CONDITION_OPS,
  WEBHOOK_METHODS,
} from '../../../../../libs/shared/src/automation/workflow-rules';
import type { Workflow } from '../../api/workflows';
import { useRole } from '../../session/use-role';
import { describeError } from '../../ui/describe-error';
import { Field, SelectField } from '../../ui/field';
import { QueryStates } from '../../ui/states';
import {
  builderResolver,
  NEW_CONDITION,
  NEW_HEADER,
  NEW_NODE,
  toBuilderValues,
  toDefinition,
  type BuilderValues,
  type NodeRow,
} from './builder-values';
import { SigningSecret } from './signing-secret';
import { useSaveWorkflow, useWorkflow } from './use-workflows';

type Builder = ReturnType<typeof useForm<BuilderValues>>;
const OPS = CONDITION_OPS.map((op) => [op, op.replace('_', ' ')] as const);
const METHODS = WEBHOOK_METHODS.map((m) => [m, m] as const);

/** /workflows/new and /workflows/:workflowId/edit: the trigger, its conditions and the nodes. */
export function WorkflowBuilderScreen() {
  const { workflowId } = useParams();
  const { role, canWrite } = useRole();
  const workflow = useWorkflow(workflowId ?? '');
  let body: React.ReactNode;
  if (role !== undefined && !canWrite) {
    body = (
      <p role="alert" className="problem">
        Creating or changing a workflow needs the owner, admin or member role (your role: {role}
        ); a viewer may only read.
      </p>
    );
  } else if (!workflowId) {
    body = <Builder />;
  } else {
    body = (
      <QueryStates query={workflow} what="the workflow">
        {(data) => <Builder workflow={data} />}
      </QueryStates>
    );
  }
  return (
    <section aria-labelledby="screen-title">
      <p>
        <Link to={workflowId ? `/workflows/${workflowId}` : '/workflows'}>
          {workflowId ? 'Back to the workflow' : 'Back to workflows'}
        </Link>
      </p>
      <h1 id="screen-title">{workflowId ? 'Edit workflow' : 'New workflow'}</h1>
      {body}
    </section>
  );
}

function Builder({ workflow }: { workflow?: Workflow }) {
  const id = useId();
  const navigate = useNavigate();
  const save = useSaveWorkflow(workflow?.id);
  const [created, setCreated] = useState<{ id: string; secret: string }>();
  const builder = useForm<BuilderValues>({
    resolver: builderResolver,
    defaultValues: toBuilderValues(workflow),
  });
  const conditions = useFieldArray({ control: builder.control, name: 'conditions' });
  const nodes = useFieldArray({ control: builder.control, name: 'nodes' });
  const { errors } = builder.formState;
  const problem = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (save.isError) problem.current?.focus();
  }, [save.isError]);

  if (created) {
    return (
      <div>
        <p role="status">Workflow created.</p>
        <SigningSecret secret={created.secret} />
        <p>
          <Link to={`/workflows/${created.id}`} className="button-link">
            Open the workflow
          </Link>
        </p>
      </div>
    );
  }

  const onSubmit = builder.handleSubmit((values) =>
    save.mutate(toDefinition(values), {
      onSuccess: (answer) => {
        if (answer.signing_secret) {
          setCreated({ id: answer.workflow.id, secret: answer.signing_secret });
        } else {
          void navigate(`/workflows/${answer.workflow.id}`);
        }
      },
    }),
  );
  return (
    <form
      className="form-editor"
      aria-label={workflow ? `Edit ${workflow.name}` : 'New workflow'}
      noValidate
      onSubmit={onSubmit}
    >
      <Field label="Name" error={errors.name?.message} registration={builder.register('name')} />
      <div className="checkbox-field">
        <input id={`${id}-enabled`} type="checkbox" {...builder.register('enabled')} />
        <label htmlFor={`${id}-enabled`}>Enabled (runs on matching events)</label>
      </div>
      <h2>Trigger</h2>
      <div className="field">
        <label htmlFor={`${id}-event`}>Event</label>
        <p id={`${id}-event-hint`} className="muted field-hint">
          An event the platform emits (pick from the list), or a pattern: lead.* matches one word,
          email.&gt; the rest.
        </p>
        <input
          id={`${id}-event`}
          list={`${id}-events`}
          aria-invalid={errors.event ? true : undefined}
          aria-describedby={`${id}-event-hint${errors.event ? ` ${id}-event-error` : ''}`}
          {...builder.register('event')}
        />
        <datalist id={`${id}-events`}>
          {PLATFORM_EVENT_TYPES.map((type) => (
            <option key={type} value={type} />
          ))}
        </datalist>
        {errors.event && (
          <p id={`${id}-event-error`} className="field-error">
            {errors.event.message}
          </p>
        )}
      </div>
      <h3>Conditions</h3>
      <p className="muted">All must hold; a field may be a dot path (e.g. data.email).</p>
      {conditions.fields.map((item, index) => (
        <fieldset key={item.id} className="field-row">
          <legend>Condition {index + 1}</legend>
          <Field
            label={`Condition ${index + 1} field`}
            error={errors.conditions?.[index]?.field?.message}
            registration={builder.register(`conditions.${index}.field`)}
          />
          <SelectField
            label={`Condition ${index + 1} operator`}
            options={OPS}
            error={errors.conditions?.[index]?.op?.message}
            registration={builder.register(`conditions.${index}.op`)}
          />
          {builder.watch(`conditions.${index}.op`) !== 'exists' && (
            <Field
              label={`Condition ${index + 1} value`}
              error={errors.conditions?.[index]?.value?.message}
              registration={builder.register(`conditions.${index}.value`)}
            />
          )}
          <button type="button" onClick={() => conditions.remove(index)}>
            Remove condition {index + 1}
          </button>
        </fieldset>
      ))}
      <p>
        <button type="button" onClick={() => conditions.append({ ...NEW_CONDITION })}>
          Add condition
        </button>
      </p>
      <h2>Webhook nodes</h2>
      <p className="muted">
        Sent in order, each signed (Standard Webhooks). A failed node does not stop the next; there
        is no automatic retry.
      </p>
      {errors.nodes?.root?.message && (
        <p role="alert" className="field-error">
          {errors.nodes.root.message}
        </p>
      )}
      {nodes.fields.map((item, index) => (
        <NodeFields
          key={item.id}
          index={index}
          builder={builder}
          errors={errors.nodes?.[index]}
          onRemove={() => nodes.remove(index)}
        />
      ))}
      <p>
        <button type="button" onClick={() => nodes.append({ ...NEW_NODE, headers: [] })}>
          Add webhook node
        </button>
      </p>
      <button type="submit" disabled={save.isPending}>
        {workflow ? 'Save changes' : 'Create workflow'}
      </button>
      {save.isError && (
        <p role="alert" className="problem" ref={problem} tabIndex={-1}>
          {describeError(save.error)}
        </p>
      )}
    </form>
  );
}

/** One webhook node: its name, URL, method and headers (key/value rows). */
function NodeFields({
  index,
  builder,
  errors,
  onRemove,
}: {
  index: number;
  builder: Builder;
  errors: FieldErrors<NodeRow> | undefined;
  onRemove: () => void;
}) {
  const n = index + 1;
  const headers = useFieldArray({ control: builder.control, name: `nodes.${index}.headers` });
  return (
    <fieldset className="field-row">
      <legend>Node {n}</legend>
      <Field
        label={`Node ${n} name (optional)`}
        error={errors?.name?.message}
        registration={builder.register(`nodes.${index}.name`)}
      />
      <Field
        label={`Node ${n} URL`}
        type="url"
        error={errors?.url?.message}
        registration={builder.register(`nodes.${index}.url`)}
      />
      <SelectField
        label={`Node ${n} method`}
        options={METHODS}
        error={errors?.method?.message}
        registration={builder.register(`nodes.${index}.method`)}
      />
      {headers.fields.map((item, row) => (
        <div key={item.id} className="header-row">
          <Field
            label={`Node ${n} header ${row + 1} name`}
            error={errors?.headers?.[row]?.name?.message}
            registration={builder.register(`nodes.${index}.headers.${row}.name`)}
          />
          <Field
            label={`Node ${n} header ${row + 1} value`}
            registration={builder.register(`nodes.${index}.headers.${row}.value`)}
          />
          <button type="button" onClick={() => headers.remove(row)}>
            Remove header {row + 1} of node {n}
          </button>
        </div>
      ))}
      <p>
        <button type="button" onClick={() => headers.append({ ...NEW_HEADER })}>
          Add header to node {n}
        </button>{' '}
        <button type="button" onClick={onRemove}>
          Remove node {n}
        </button>
      </p>
    </fieldset>
  );
}
