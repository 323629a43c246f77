export {
  RETENTION_POLICIES,
  keepMs,
  retentionVariables,
  type RetentionPolicy,
  type RetentionPolicyKey,
} from './policies';
export { retentionSweep, partitionSweep, type RetentionSweep } from './sweep';
export { retentionWorker, type RetentionWorkerOptions } from './retention-worker';
export { retentionHealthCheck } from './retention-check';
export { serviceRetention, type RetentionSweepConfig } from './service-retention';
