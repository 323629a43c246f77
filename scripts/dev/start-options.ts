import { parseArgs } from 'node:util';
import { ConfigError } from '../../libs/shared/src/config';

export interface StartOptions {
  /** Whether the demo tenant gets its sample CRM on a database that has none yet. */
  sampleData: boolean;
}

/**
 * `npm start -- --no-sample-data`, or `SAMPLE_DATA=false`, starts with the demo tenant empty
 * (specified). The flag wins over the variable; an unknown flag or a value other than
 * true/false fails the start with what to write instead, like any wrong setting.
 */
export function startOptions(argv: string[], env: NodeJS.ProcessEnv): StartOptions {
  let flags: { 'no-sample-data'?: boolean };
  try {
    flags = parseArgs({
      args: argv,
      options: { 'no-sample-data': { type: 'boolean' } },
      strict: true,
    }).values;
  } catch (err) {
    throw new ConfigError('npm start', [
      `${(err as Error).message} (the one option is --no-sample-data)`,
    ]);
  }
  const variable = env.SAMPLE_DATA?.trim().toLowerCase();
  if (variable !== undefined && variable !== '' && variable !== 'true' && variable !== 'false') {
    throw new ConfigError('npm start', [`SAMPLE_DATA: expected true or false`]);
  }
  return { sampleData: !flags['no-sample-data'] && variable !== 'false' };
}
