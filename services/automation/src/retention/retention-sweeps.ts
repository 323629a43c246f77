import {
  keepMs,
  RETENTION_POLICIES,
  retentionSweep,
  serviceRetention,
} from '@crm/shared/retention';
import type { Config } from '../config';
import { deleteWorkflowRunsBefore, oldestWorkflowRunBefore } from './retention.repository';

/** automation sweeps its run history (runs and, with them, their steps). */
export function automationRetention(config: Config) {
  const policy = RETENTION_POLICIES.workflowRuns;
  return serviceRetention(config, [
    retentionSweep('workflow_runs', policy, keepMs(policy, config[policy.variable]), {
      sweepBatch: deleteWorkflowRunsBefore,
      oldestBefore: oldestWorkflowRunBefore,
    }),
  ]);
}
