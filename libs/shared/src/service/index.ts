export { listen, closeServer } from './http-server';
export { onShutdownSignal } from './shutdown-signal';
export { runStandalone } from './run-standalone';
export type { ServiceDefinition, AppDeps, Worker, WorkerDeps } from './service-definition';
export { startWorkers, stopWorkers, consumerWorker } from './workers';
export { stopService, type RunningService } from './stop-service';
export { readVersion } from './version';
export { serve, type ServedService } from './serve';
export {
  resealSecretsWorker,
  resealStoredSecrets,
  type SealedColumn,
  type ResealCounts,
} from './reseal-secrets-worker';
