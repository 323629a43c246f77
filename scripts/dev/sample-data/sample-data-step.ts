import type { Logger } from '../../../libs/shared/src/logger';
import type { EchoReceiver } from '../echo-receiver';
import type { Demo } from '../seed-demo';
import { seedSampleData, type SampleDataOutcome } from './seed-sample-data';

/**
 * `npm start`'s sample-data step, once every service listens: off when asked, otherwise the
 * seeding through the gateway. A failure is logged and the platform keeps running (an empty or
 * partly filled demo tenant is still a working platform); the message says what was refused.
 */
export async function sampleDataStep(options: {
  enabled: boolean;
  gatewayUrl: string;
  demo: Demo;
  echo: EchoReceiver;
  log: Logger;
}): Promise<SampleDataOutcome> {
  if (!options.enabled) return { state: 'off' };
  try {
    const outcome = await seedSampleData({
      gatewayUrl: options.gatewayUrl,
      tenant: options.demo.tenant,
      email: options.demo.user.email,
      password: options.demo.password,
      echo: options.echo,
    });
    if (outcome.state === 'seeded') {
      options.log.info({ sampleData: outcome.counts }, 'sample data written to the demo tenant');
      if (outcome.testRunStatus !== 'success') {
        options.log.warn(
          { status: outcome.testRunStatus },
          "the sample workflow's test run did not succeed: see its run in the API",
        );
      }
    }
    return outcome;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    options.log.warn({ reason }, 'sample data: seeding stopped; the platform runs without it');
    return { state: 'failed', reason };
  }
}
