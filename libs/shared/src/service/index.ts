export { listen, closeServer } from './http-server';
export { onShutdownSignal } from './shutdown-signal';
export { runStandalone } from './run-standalone';
export type { ServiceDefinition, AppDeps } from './service-definition';
export { readVersion } from './version';
export { serve, type ServedService } from './serve';
