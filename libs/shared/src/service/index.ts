export { listen, closeServer } from './http-server';
export { onShutdownSignal } from './shutdown-signal';
export { runStandalone, type ServiceDefinition, type AppDeps } from './run-standalone';
export { readVersion } from './version';
export { serve, type ServedService } from './serve';
