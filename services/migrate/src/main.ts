import './telemetry';
import { runStandalone, type ServiceDefinition } from '@crm/shared/service';
import { join } from 'node:path';
import { createApp } from './app';
import { configSchema } from './config';
import { migrateRetention } from './retention/retention-sweeps';

export const service: ServiceDefinition<typeof configSchema> = {
  name: 'migrate',
  configSchema,
  port: (config) => config.MIGRATE_PORT,
  createApp,
  workers: (deps, config) => [migrateRetention(config).worker(deps)],
  runsOutboxRelay: true,
  packageDir: join(__dirname, '..'),
};

// Started directly (npm run start -w services/migrate, or node dist/main.js in its image).
if (require.main === module) {
  void runStandalone(service);
}
