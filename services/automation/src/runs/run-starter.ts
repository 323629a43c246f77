import type { EventEnvelope } from '@crm/shared/events';
import type { StoredWorkflow } from '../workflows/workflows.repository';
import type { ReplaySource } from './runs.repository';
import type { RunWithSteps, SampleInput } from './runs.schema';

/*
 * The engine as the run routes call it (a test run, a replay), and what a run keeps of its
 * context for a replay. Declared beside the runs: the engine records its runs through
 * runs.repository, so runs/ must not import engine/ back; the engine implements this.
 */

/** The event a run is about, as its context and its outbound body carry it. */
export interface RunEvent {
  id: string;
  type: string;
  occurred_at: string;
}

/** What a run stores of its context, so that a replay can send the same body again. */
export interface StoredContext {
  record: Record<string, unknown>;
  event: RunEvent;
}

export interface RunStarter {
  /** Runs a workflow once now on a sample record, as a test run; resolves with the run. */
  runTest(tenantId: string, workflow: StoredWorkflow, sample: SampleInput): Promise<RunWithSteps>;
  /** Runs a workflow once now on one of the tenant's recorded events, as a test run. */
  runTestOnEvent(workflow: StoredWorkflow, event: EventEnvelope): Promise<RunWithSteps>;
  /** Sends `positions` of `original` again as a new run linked to it; resolves with that run. */
  replay(
    tenantId: string,
    workflow: StoredWorkflow,
    original: ReplaySource & { context: StoredContext },
    positions: number[],
    replayedBy: string,
  ): Promise<RunWithSteps>;
}
