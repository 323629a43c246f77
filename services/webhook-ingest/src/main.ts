import './telemetry';
import { configuredSecretBox, CONNECTION_SECRETS } from '@crm/shared/crypto';
import { resealSecretsWorker, runStandalone, type ServiceDefinition } from '@crm/shared/service';
import { join } from 'node:path';
import { createApp } from './app';
import { configSchema } from './config';
import { webhookIngestRetention } from './retention/retention-sweeps';

export const service: ServiceDefinition<typeof configSchema> = {
  name: 'webhook-ingest',
  configSchema,
  port: (config) => config.WEBHOOK_INGEST_PORT,
  createApp,
  // Retention sweeps; while a key is being rotated, stored connection secrets are re-sealed
  // under the new one.
  workers: (deps, config) => [
    webhookIngestRetention(config).worker(deps),
    ...(config.CONNECTION_SECRETS_KEY_PREVIOUS || deps.previousInternalTokenSecret
      ? [
          resealSecretsWorker(deps, configuredSecretBox(CONNECTION_SECRETS, config, deps), [
            { table: 'storefront_connections', column: 'webhook_secret_ciphertext' },
            { table: 'payment_connections', column: 'webhook_secret_ciphertext' },
          ]),
        ]
      : []),
  ],
  runsOutboxRelay: true,
  packageDir: join(__dirname, '..'),
};

// Started directly (npm run start -w services/webhook-ingest, or node dist/main.js in its image).
if (require.main === module) {
  void runStandalone(service);
}
