import { addOperation, idParam, type OpenAPIRegistry } from '@crm/shared/openapi';
import { z } from 'zod';
import { eventPageQuery, eventPageSchema, eventTypesSchema } from './events/events.schema';
import {
  replaySchema,
  runPageQuery,
  runPageSchema,
  runResponseSchema,
  testRunSchema,
} from './runs/runs.schema';
import {
  createWorkflowSchema,
  updateWorkflowSchema,
  workflowPageQuery,
  workflowPageSchema,
  workflowResponseSchema,
  workflowWithSecretResponseSchema,
} from './workflows/workflows.schema';

/*
 * automation's operations, from the schemas its routes validate with (build-time only: the
 * generator in scripts/openapi imports this; the service never does).
 */

const NON_PUBLIC_URL_REFUSED =
  'A webhook url whose host is a literal non-public address (loopback, private, link-local, ' +
  'CGNAT, reserved, or an IPv6 form carrying one, e.g. `[::127.0.0.1]`) or `localhost` is ' +
  'refused with 400 (unless OUTBOUND_ALLOW_PRIVATE_NETWORKS is on); names are checked when ' +
  'they are resolved, at send time.';
const BASE = '/api/automations/workflows';
const TAG = 'Automations';
const WORKFLOW_EXAMPLE = {
  name: 'New lead to Slack relay',
  enabled: true,
  trigger: {
    event: 'lead.created',
    conditions: [{ field: 'source', op: 'equals', value: 'web_form' }],
  },
  nodes: [
    {
      type: 'webhook',
      name: 'Notify',
      config: {
        url: 'https://hooks.example.com/crm',
        method: 'POST',
        headers: { 'X-Team': 'sales' },
      },
    },
  ],
};

export function registerOperations(registry: OpenAPIRegistry): void {
  addOperation(registry, {
    method: 'get',
    path: BASE,
    tag: TAG,
    summary: "List the tenant's workflows (page helper)",
    auth: 'session',
    query: workflowPageQuery,
    // The page itself, not inside the success envelope: what the route answers (docs/api.md).
    success: { description: 'One page of workflows', bare: workflowPageSchema },
    errors: [400],
  });
  addOperation(registry, {
    method: 'post',
    path: BASE,
    tag: TAG,
    summary: 'Create a workflow',
    description:
      'A trigger (an event type the platform emits, or a pattern such as `lead.*`, with ' +
      'optional conditions) and an ordered list of nodes (type `webhook`: url, method GET | POST ' +
      "| PUT | PATCH, headers). The answer carries the workflow's Standard Webhooks signing " +
      'secret (`whsec_...`) once. Viewers may not write. ' +
      NON_PUBLIC_URL_REFUSED,
    auth: 'session',
    body: { schema: createWorkflowSchema, example: WORKFLOW_EXAMPLE },
    success: {
      status: 201,
      description: 'Created; signing_secret is shown this once',
      data: workflowWithSecretResponseSchema,
    },
    errors: [400],
  });
  addOperation(registry, {
    method: 'get',
    path: `${BASE}/{id}`,
    tag: TAG,
    summary: 'Read a workflow',
    auth: 'session',
    params: idParam(),
    success: { description: 'The workflow', data: workflowResponseSchema },
    errors: [404],
  });
  addOperation(registry, {
    method: 'patch',
    path: `${BASE}/{id}`,
    tag: TAG,
    summary: 'Change a workflow (any of its fields)',
    description: NON_PUBLIC_URL_REFUSED,
    auth: 'session',
    params: idParam(),
    body: { schema: updateWorkflowSchema, example: { enabled: false } },
    success: { description: 'The changed workflow', data: workflowResponseSchema },
    errors: [400, 404],
  });
  addOperation(registry, {
    method: 'delete',
    path: `${BASE}/{id}`,
    tag: TAG,
    summary: 'Delete a workflow (its runs go with it)',
    auth: 'session',
    params: idParam(),
    success: { description: 'Deleted', data: z.object({ id: z.uuid() }) },
    errors: [404],
  });
  addOperation(registry, {
    method: 'post',
    path: `${BASE}/{id}/rotate-secret`,
    tag: TAG,
    summary: 'Replace the signing secret (the new one is shown this once)',
    auth: 'session',
    params: idParam(),
    success: {
      description: 'The workflow and its new secret',
      data: workflowWithSecretResponseSchema,
    },
    errors: [404],
  });
  addOperation(registry, {
    method: 'get',
    path: `${BASE}/{id}/runs`,
    tag: TAG,
    summary: "A workflow's runs, newest first (page helper), by status and start time",
    auth: 'session',
    params: idParam(),
    query: runPageQuery,
    success: { description: 'One page of runs', bare: runPageSchema },
    errors: [400, 404],
  });
  addOperation(registry, {
    method: 'post',
    path: `${BASE}/{id}/test`,
    tag: TAG,
    summary:
      'Run the workflow once now on a sample record or a recent event (recorded as a test run)',
    description:
      'Runs the workflow now, enabled or not, without checking its conditions, and answers ' +
      'the finished run with each step (request, response status, duration, message); the ' +
      'webhooks are really sent. The body is a sample `record` and its `module`, or ' +
      "`eventId`: one of the tenant's recent events (GET /api/events), run on with the context " +
      'that event gives a real run (its id, type, time, record and payload). Both together ' +
      "are a 400; another tenant's or an unknown event is a 404. The run is a test run " +
      '(`is_test` true, `event_id` null). Viewers may not test.',
    auth: 'session',
    params: idParam(),
    body: {
      schema: testRunSchema,
      example: { module: 'leads', record: { email: 'ann@example.com' } },
    },
    success: { description: 'The run and its steps', data: runResponseSchema },
    errors: [400, 404],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/automations/runs/{id}',
    tag: TAG,
    summary: 'Read a run with its steps',
    auth: 'session',
    params: idParam(),
    success: { description: 'The run, its steps and its replays', data: runResponseSchema },
    errors: [404],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/events',
    tag: TAG,
    summary: "The tenant's recent platform events, newest first (page helper)",
    description:
      'What workflows react to: the events the platform recorded for the tenant (its outbox ' +
      'rows, kept for the outbox retention, 7 days by default after they are published), ' +
      'filterable by `type`. A bulk write stored as one batch row is one item with its ' +
      '`event_count` and its first event. Any member may read them, viewers too.',
    auth: 'session',
    query: eventPageQuery,
    success: { description: 'One page of events', bare: eventPageSchema },
    errors: [400],
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/events/types',
    tag: TAG,
    summary: 'The event types the platform emits (the list filter and workflow triggers take)',
    auth: 'session',
    success: { description: 'The event types', data: eventTypesSchema },
  });
  addOperation(registry, {
    method: 'get',
    path: '/api/automations/runs',
    tag: TAG,
    summary: 'The runs of all workflows, newest first (page helper), by status and start time',
    auth: 'session',
    query: runPageQuery,
    success: { description: 'One page of runs', bare: runPageSchema },
    errors: [400],
  });
  addOperation(registry, {
    method: 'post',
    path: '/api/automations/runs/{id}/replay',
    tag: TAG,
    summary: 'Replay a failed run, or one failed step, as a new run linked to it',
    description:
      'Sends the failed steps of the run (or the step at `position`) again, now, with the ' +
      "workflow's current node and secret, the original's `webhook-id` and the original's " +
      'body, so a receiver can deduplicate. The new run has `replay_of` (the first run of the ' +
      'chain) and `replayed_by`. A run that succeeded, a step that succeeded or a run still ' +
      'running is a 409 CONFLICT; nothing is written. No automatic retry ever happens: a ' +
      'replay is always asked for by a person. The SSRF guard applies at send time. Viewers ' +
      'may not replay.',
    auth: 'session',
    params: idParam(),
    body: { schema: replaySchema, example: { position: 1 } },
    success: { status: 201, description: 'The new run and its steps', data: runResponseSchema },
    errors: [400, 404, 409],
  });
}
