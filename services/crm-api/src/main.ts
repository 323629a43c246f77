import './telemetry';
import { runStandalone, type ServiceDefinition } from '@crm/shared/service';
import { join } from 'node:path';
import { createApp } from './app';
import { configSchema } from './config';
import { crmApiRetention } from './retention/retention-sweeps';
import { leadSearchIndexer } from './search-index/lead-search-indexer';

export const service: ServiceDefinition<typeof configSchema> = {
  name: 'crm-api',
  configSchema,
  port: (config) => config.CRM_API_PORT,
  createApp,
  workers: (deps, config) => [leadSearchIndexer(deps), crmApiRetention(config).worker(deps)],
  runsOutboxRelay: true,
  packageDir: join(__dirname, '..'),
};

// Started directly (npm run start -w services/crm-api, or node dist/main.js in its image).
if (require.main === module) {
  void runStandalone(service);
}
