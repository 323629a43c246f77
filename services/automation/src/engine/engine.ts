import { randomUUID } from 'node:crypto';
import { withTenant, type Database } from '@crm/shared/db';
import { PLATFORM_EVENT_TYPES, typeMatches, type EventEnvelope } from '@crm/shared/events';
import { inSpan } from '@crm/shared/telemetry';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
// svix's webhook module alone: the package's index loads its whole API client (250 modules,
// ~13 MB of a service's idle memory) for one class.
import { Webhook } from 'svix/dist/webhook';
import {
  finishRun,
  findRun,
  recordRuns,
  type NewRun,
  type ReplaySource,
} from '../runs/runs.repository';
import type { RunEvent, RunStarter, StoredContext } from '../runs/run-starter';
import type { RunWithSteps, SampleInput, Step } from '../runs/runs.schema';
import type { SecretBox } from '@crm/shared/crypto';
import { enabledWorkflows, type StoredWorkflow } from '../workflows/workflows.repository';
import type { WorkflowNode } from '../workflows/workflows.schema';
import type { TenantLimiter } from './limiter';
import { describeError, type OutboundClient } from './outbound';
import { triggerMatches } from './triggers';

/** What a run is about: the triggering event and its record. */
export interface RunContext {
  tenantId: string;
  event: RunEvent;
  module: string;
  recordId: string;
  /** The record's fields as the event carries them (`id` + the event's `data`). */
  record: Record<string, unknown>;
}

/** The variable bag of a run, as the outbound body's `variables` carries it. */
export interface Variables {
  record: Record<string, unknown>;
  event: RunEvent;
  steps: Array<{
    position: number;
    name: string | null;
    type: string;
    status: 'success' | 'failed';
    response_status: number | null;
  }>;
}

export interface EngineDeps {
  db: Kysely<Database>;
  logger: Logger;
  secrets: SecretBox;
  outbound: OutboundClient;
  limiter: TenantLimiter;
  /**
   * Most runs recorded but not yet finished in this process; past it the event handler waits
   * (so the bus holds the rest, unacked) instead of queueing without end.
   */
  maxPending: number;
}

export function contextOf(event: EventEnvelope): RunContext {
  return {
    tenantId: event.tenant_id,
    event: { id: event.id, type: event.type, occurred_at: event.occurred_at },
    module: event.record.module,
    recordId: event.record.id,
    record: { id: event.record.id, ...event.data },
  };
}

/**
 * Runs workflows: matches events to the tenant's enabled workflows, records each run before
 * anything is sent (unique per workflow and event: a redelivered event runs nothing again),
 * then executes the runs under the concurrency limits and records their steps.
 */
export class Engine implements RunStarter {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly roomWaiters: Array<() => void> = [];

  constructor(private readonly deps: EngineDeps) {}

  /**
   * The bus handler: records the runs of every matching workflow in one transaction (under the
   * event's tenant, so another tenant's workflows are never even read), then hands them to the
   * limiter and returns, so the bus acks once the runs are recorded. Throws (-> redelivery)
   * only when recording fails.
   */
  async handleEvent(event: EventEnvelope): Promise<void> {
    const context = contextOf(event);
    const planned = await withTenant(this.deps.db, event.tenant_id, async (trx) => {
      const workflows = (await enabledWorkflows(trx, event.tenant_id)).filter((w) =>
        triggerMatches(w.trigger, event.type, context.record),
      );
      const ids = await recordRuns(
        trx,
        event.tenant_id,
        workflows.map((w) => newRun(w, context, false)),
      );
      return workflows.flatMap((w) => {
        const runId = ids.get(w.id);
        return runId ? [{ workflow: w, runId }] : [];
      });
    });
    for (const { workflow, runId } of planned) {
      while (this.inFlight.size >= this.deps.maxPending) {
        await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
      }
      const running = this.deps.limiter
        .run(context.tenantId, () =>
          inSpan(
            'workflow run',
            { 'crm.workflow.id': workflow.id, 'crm.workflow.run.id': runId },
            () => this.execute(workflow, runId, context),
          ),
        )
        .then(
          () => undefined,
          (err: unknown) =>
            this.deps.logger.error({ err, runId, workflowId: workflow.id }, 'workflow run failed'),
        )
        .finally(() => {
          this.inFlight.delete(running);
          this.roomWaiters.shift()?.();
        });
      this.inFlight.add(running);
    }
  }

  /** Runs a workflow once now on a sample record, as a test run; resolves with the run. */
  async runTest(
    tenantId: string,
    workflow: StoredWorkflow,
    sample: SampleInput,
  ): Promise<RunWithSteps> {
    const eventType = PLATFORM_EVENT_TYPES.find((t) => typeMatches(workflow.trigger.event, t));
    const recordId =
      typeof sample.record?.id === 'string' || typeof sample.record?.id === 'number'
        ? String(sample.record.id)
        : 'test';
    return this.test(workflow, {
      tenantId,
      event: {
        id: randomUUID(),
        type: eventType ?? workflow.trigger.event,
        occurred_at: new Date().toISOString(),
      },
      module: sample.module ?? (eventType ?? workflow.trigger.event).split('.')[0] + 's',
      recordId,
      record: { id: recordId, ...sample.record },
    });
  }

  /**
   * Runs a workflow once now on one of the tenant's recorded events, with the context that
   * event gave (or would give) a real run: its id, type, time, record and payload. Recorded as
   * a test run all the same; resolves with the run.
   */
  async runTestOnEvent(workflow: StoredWorkflow, event: EventEnvelope): Promise<RunWithSteps> {
    return this.test(workflow, contextOf(event));
  }

  /**
   * A test run: recorded as one (`is_test`, no `event_id`, so it never stands in for the
   * event's own run), executed now under the tenant's limits; resolves with the finished run.
   */
  private async test(workflow: StoredWorkflow, context: RunContext): Promise<RunWithSteps> {
    const { tenantId } = context;
    const runId = await withTenant(this.deps.db, tenantId, async (trx) => {
      const ids = await recordRuns(trx, tenantId, [newRun(workflow, context, true)]);
      return ids.get(workflow.id) as string;
    });
    await this.deps.limiter.run(tenantId, () => this.execute(workflow, runId, context));
    const run = await withTenant(this.deps.db, tenantId, (trx) => findRun(trx, tenantId, runId));
    return run as RunWithSteps;
  }

  /**
   * Sends `positions` of `original` (the first run of a replay chain) again as a new run linked
   * to it: each request carries the original's `webhook-id` (so a receiver can deduplicate) and
   * the original's body (its record, event and the earlier steps as they were), signed now with
   * the workflow's current secret. The workflow's node at each position is sent (its URL may
   * have been corrected since); the outbound client's SSRF guard applies as on every send.
   * Resolves with the new run.
   */
  async replay(
    tenantId: string,
    workflow: StoredWorkflow,
    original: ReplaySource & { context: StoredContext },
    positions: number[],
    replayedBy: string,
  ): Promise<RunWithSteps> {
    const { run } = original;
    const context: RunContext = {
      tenantId: tenantId,
      event: original.context.event,
      module: run.module,
      recordId: run.record_id,
      record: original.context.record,
    };
    const runId = await withTenant(this.deps.db, tenantId, async (trx) => {
      const replay = { of: run.id, by: replayedBy };
      const ids = await recordRuns(trx, tenantId, [
        { ...newRun(workflow, context, run.is_test), eventId: null, replay },
      ]);
      return ids.get(workflow.id) as string;
    });
    await this.deps.limiter.run(tenantId, () =>
      this.execute(workflow, runId, context, {
        positions,
        messageRunId: run.id,
        earlierSteps: run.steps,
      }),
    );
    const replayed = await withTenant(this.deps.db, tenantId, (trx) =>
      findRun(trx, tenantId, runId),
    );
    return replayed as RunWithSteps;
  }

  /** Resolves when every run in progress in this process has finished. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Executes a recorded run: each node in order (a failed step does not stop the next). A
   * replay executes only its positions, under the original run's message ids, each with the
   * earlier steps the original's body carried.
   */
  private async execute(
    workflow: StoredWorkflow,
    runId: string,
    context: RunContext,
    replay?: { positions: number[]; messageRunId: string; earlierSteps: Step[] },
  ): Promise<void> {
    const variables: Variables = { record: context.record, event: context.event, steps: [] };
    const steps: Step[] = [];
    const secret = this.deps.secrets.open(workflow.signing_secret_sealed);
    for (const [position, node] of workflow.nodes.entries()) {
      if (replay && !replay.positions.includes(position)) continue;
      if (replay) {
        variables.steps = replay.earlierSteps
          .filter((step) => step.position < position)
          .map((step) => ({
            position: step.position,
            name: step.node_name,
            type: step.node_type,
            status: step.status,
            response_status: step.response_status,
          }));
      }
      const messageId = `msg_${replay?.messageRunId ?? runId}_${position}`;
      const started = performance.now();
      const outcome = await this.runNode(node, messageId, context, variables, secret).catch(
        (err: unknown) => ({
          status: 'failed' as const,
          message: `Webhook ${node.config.method} ${node.config.url} → error: ${describeError(err)}`,
          responseStatus: null,
        }),
      );
      const step: Step = {
        position,
        node_type: node.type,
        node_name: node.name ?? null,
        status: outcome.status,
        message: outcome.message,
        response_status: outcome.responseStatus,
        duration_ms: Math.round(performance.now() - started),
      };
      steps.push(step);
      variables.steps.push({
        position,
        name: step.node_name,
        type: step.node_type,
        status: step.status,
        response_status: step.response_status,
      });
    }
    await withTenant(this.deps.db, context.tenantId, (trx) =>
      finishRun(trx, context.tenantId, runId, steps),
    );
  }

  private async runNode(
    node: WorkflowNode,
    messageId: string,
    context: RunContext,
    variables: Variables,
    secret: string | undefined,
  ): Promise<{ status: 'success' | 'failed'; message: string; responseStatus: number | null }> {
    const { url, method, headers = {} } = node.config;
    const prefix = `Webhook ${method} ${url} →`;
    if (!secret) {
      return {
        status: 'failed',
        message: `${prefix} error: signing secret unreadable`,
        responseStatus: null,
      };
    }
    const body =
      method === 'GET'
        ? undefined
        : JSON.stringify({
            tenant_id: context.tenantId,
            record_id: context.recordId,
            module: context.module,
            variables,
          });
    // Standard Webhooks: a stable id per run and step (a replay keeps the original's), the
    // time of sending, and the signature.
    const timestamp = new Date();
    const signature = new Webhook(secret).sign(messageId, timestamp, body ?? '');
    const result = await this.deps.outbound.send({
      method,
      url,
      headers: {
        ...headers,
        'webhook-id': messageId,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body,
    });
    if ('error' in result) {
      return {
        status: 'failed',
        message: `${prefix} error: ${result.error}`,
        responseStatus: null,
      };
    }
    return {
      status: result.ok ? 'success' : 'failed',
      message: `${prefix} ${result.status}`,
      responseStatus: result.status,
    };
  }
}

function newRun(workflow: StoredWorkflow, context: RunContext, isTest: boolean): NewRun {
  const stored: StoredContext = { record: context.record, event: context.event };
  return {
    context: stored,
    workflowId: workflow.id,
    eventId: isTest ? null : context.event.id,
    eventType: context.event.type,
    module: context.module,
    recordId: context.recordId,
    isTest,
  };
}
