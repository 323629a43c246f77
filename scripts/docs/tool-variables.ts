/*
 * Variables read outside the services' config schemas: by `npm start`, the command-line tools
 * and the test run. The configuration reference (docs/configuration.md) lists them beside the
 * schemas' variables; `sources` are the files that read each one, and a test checks that they
 * still do.
 */

export interface ToolVariable {
  name: string;
  /** As the reference shows it: a value, or what happens when it is unset. */
  default: string;
  readBy: string[];
  sources: string[];
  description: string;
}

export const TOOL_VARIABLES: readonly ToolVariable[] = [
  {
    name: 'BACKEND_HOST',
    default: '`127.0.0.1`',
    readBy: ['`npm start`'],
    sources: ['scripts/dev/ports.ts'],
    description:
      'Where the five services behind the gateway listen under `npm start`, so only the gateway ' +
      'is reachable from the network.',
  },
  {
    name: 'EMBEDDED_PG_PORT',
    default: '54329',
    readBy: ['`npm start`'],
    sources: ['scripts/start-all.ts'],
    description: 'Port of the embedded Postgres (used when DATABASE_URL is unset).',
  },
  {
    name: 'DEMO_PASSWORD',
    default: '`demo-password`',
    readBy: ['`npm start`'],
    sources: ['scripts/start-all.ts'],
    description: 'Password given to the demo user `demo@example.com` when it is first created.',
  },
  {
    name: 'ECHO_RECEIVER_PORT',
    default: '4010',
    readBy: ['`npm start`'],
    sources: ['scripts/start-all.ts'],
    description:
      'Port of the local webhook receiver `npm start` runs on 127.0.0.1; the sample workflow ' +
      'posts to it (docs/sample-data.md).',
  },
  {
    name: 'SAMPLE_DATA',
    default: '`true`',
    readBy: ['`npm start`'],
    sources: ['scripts/dev/start-options.ts'],
    description:
      '`false` (or `npm start -- --no-sample-data`) starts with the demo tenant empty; otherwise ' +
      'its sample CRM is written through the gateway once per database.',
  },
  {
    name: 'DEV_DATA_DIR',
    default: '`.data`',
    readBy: ['`npm start`'],
    sources: ['scripts/dev/dev-profile.ts'],
    description:
      'Where the development profile keeps its generated secrets (`dev-secrets.json`, mode ' +
      '0600) and the embedded Postgres its data (docs/development.md).',
  },
  {
    name: 'NODE_ENV',
    default: 'unset',
    readBy: ['`npm start`'],
    sources: ['scripts/dev/dev-profile.ts'],
    description:
      '`production` turns the development profile off: no secrets file, no webhooks to private ' +
      'networks, and the start requires INTERNAL_TOKEN_SECRET, AUTOMATION_SECRETS_KEY and ' +
      'CONNECTION_SECRETS_KEY.',
  },
  {
    name: 'REQUIRE_NATS',
    default: 'unset',
    readBy: ['`npm test`'],
    sources: ['scripts/test/global-setup.ts'],
    description:
      'Fail instead of skipping the NATS JetStream tests when no NATS server answers at ' +
      'NATS_URL (CI sets it).',
  },
];

/** Variables of the services' schemas that a tool reads as well, and the files where it does. */
export const ALSO_READ_BY: Readonly<Record<string, { readBy: string[]; sources: string[] }>> = {
  DATABASE_URL: {
    readBy: ['`npm start`', '`npm run migrate`'],
    sources: ['scripts/start-all.ts', 'libs/shared/src/db/migrate-cli.ts'],
  },
  NATS_URL: { readBy: ['`npm start`'], sources: ['scripts/start-all.ts'] },
  INTERNAL_TOKEN_SECRET: { readBy: ['`npm start`'], sources: ['scripts/start-all.ts'] },
  LOG_LEVEL: { readBy: ['`npm start`'], sources: ['scripts/start-all.ts'] },
  SVC_MIGRATE_SIGNING_SECRET: {
    readBy: ['`npm run migrate:push`'],
    sources: ['services/migrate/src/push/migrate-push.ts'],
  },
};
