import './telemetry';
import { runStandalone, type ServiceDefinition } from '@crm/shared/service';
import { join } from 'node:path';
import { createApp } from './app';
import { configSchema } from './config';
import { expiredOAuthRowsWorker } from './oauth/expired-oauth-rows-worker';
import { expiredCountersWorker } from './rate-limit/expired-counters-worker';

export const service: ServiceDefinition<typeof configSchema> = {
  name: 'gateway',
  configSchema,
  port: (config) => config.GATEWAY_PORT,
  createApp,
  workers: (deps) => [expiredCountersWorker(deps), expiredOAuthRowsWorker(deps)],
  runsOutboxRelay: false,
  packageDir: join(__dirname, '..'),
};

// Started directly (npm run start -w services/gateway, or node dist/main.js in its image).
if (require.main === module) {
  void runStandalone(service);
}
