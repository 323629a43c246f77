import { errors } from '@crm/shared/http';
import type { StoredContext } from './run-starter';
import type { ReplaySource } from './runs.repository';
import type { ReplayInput } from './runs.schema';

/**
 * Which steps of a run a replay sends again, or why it may not: a 409 CONFLICT when the run
 * has nothing failed to send (a run that succeeded, or one still running: a replay is for what
 * a receiver did not take, and a receiver that wants a request again can ask for it by id), or
 * was recorded before runs kept their context; a 400 for a position the run has no step at.
 * Nothing is written on any refusal.
 */
export function planReplay(
  source: ReplaySource,
  input: ReplayInput,
  nodeCount: number,
): { positions: number[]; context: StoredContext } {
  const { run } = source;
  if (run.status === 'running') {
    throw errors.conflict('Run is still running: replay it once it has finished');
  }
  if (!source.context) {
    throw errors.conflict('Run was recorded before replays were possible: it cannot be replayed');
  }
  let positions: number[];
  if (input.position !== undefined) {
    const step = run.steps.find((s) => s.position === input.position);
    if (!step) throw errors.validation(`position ${input.position} is not a step of this run`);
    if (step.status !== 'failed') {
      throw errors.conflict(`Step ${input.position} succeeded: only a failed step is replayed`);
    }
    positions = [input.position];
  } else {
    if (run.status === 'success') {
      throw errors.conflict('Run succeeded: only a failed run or step is replayed');
    }
    positions = run.steps.filter((s) => s.status === 'failed').map((s) => s.position);
  }
  const gone = positions.find((p) => p >= nodeCount);
  if (gone !== undefined) {
    throw errors.conflict(`The workflow no longer has a node at position ${gone}`);
  }
  return { positions, context: source.context as StoredContext };
}
