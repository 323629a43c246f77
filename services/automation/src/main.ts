import './telemetry';
import {
  consumerWorker,
  resealSecretsWorker,
  runStandalone,
  type ServiceDefinition,
} from '@crm/shared/service';
import { join } from 'node:path';
import { createApp } from './app';
import { configSchema } from './config';
import { createEngine, secretBoxFor } from './engine/create-engine';
import { automationRetention } from './retention/retention-sweeps';

/** The durable consumer's name: every automation instance shares its work. */
export const CONSUMER_NAME = 'automation-workflows';

export const service: ServiceDefinition<typeof configSchema> = {
  name: 'automation',
  configSchema,
  port: (config) => config.AUTOMATION_PORT,
  createApp,
  workers: (deps, config) => {
    const { engine, outbound } = createEngine(deps, config);
    const consumer = consumerWorker(CONSUMER_NAME, deps.bus, {
      durable: CONSUMER_NAME,
      handler: (event) => engine.handleEvent(event),
    });
    // While a key is being rotated, stored workflow secrets are re-sealed under the new one.
    const rotating = config.AUTOMATION_SECRETS_KEY_PREVIOUS || deps.previousInternalTokenSecret;
    const reseal = rotating
      ? [
          resealSecretsWorker(deps, secretBoxFor(config, deps), [
            { table: 'automation_workflows', column: 'signing_secret_sealed' },
          ]),
        ]
      : [];
    return [
      ...reseal,
      automationRetention(config).worker(deps),
      {
        name: consumer.name,
        start: () => consumer.start(),
        // Stop taking events, let the runs in hand finish (each bounded by its timeouts).
        async stop() {
          await consumer.stop();
          await engine.drain();
          outbound.close();
        },
      },
    ];
  },
  runsOutboxRelay: false,
  packageDir: join(__dirname, '..'),
};

// Started directly (npm run start -w services/automation, or node dist/main.js in its image).
if (require.main === module) {
  void runStandalone(service);
}
