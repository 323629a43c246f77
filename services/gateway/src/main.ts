import './telemetry';
import { runStandalone, type ServiceDefinition } from '@crm/shared/service';
import { join } from 'node:path';
import { createApp } from './app';
import { configSchema } from './config';
import { gatewayRetention } from './retention/retention-sweeps';

export const service: ServiceDefinition<typeof configSchema> = {
  name: 'gateway',
  configSchema,
  port: (config) => config.GATEWAY_PORT,
  createApp,
  workers: (deps, config) => [gatewayRetention(config).worker(deps)],
  runsOutboxRelay: false,
  packageDir: join(__dirname, '..'),
};

// Started directly (npm run start -w services/gateway, or node dist/main.js in its image).
if (require.main === module) {
  void runStandalone(service);
}
