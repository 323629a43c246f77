/**
 * `npm run migrate:push -- --file export.ndjson --entity leads --tenant acme --source hubspot
 *  [--url http://localhost:8080] [--chunk 1000] [--failed failed.ndjson]` (`--help`: usage)
 *
 * Pushes an export file (NDJSON, JSON array or CSV; every record with its `external_id`) to the
 * platform's signed migration ingest, signing each request with SVC_MIGRATE_SIGNING_SECRET.
 * Exits 0 when every chunk was taken (refused records are in the failed file), 1 otherwise;
 * every failure is one line on stderr, never a stack trace.
 */
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { MIGRATION_ENTITIES } from '@crm/shared/db';
import { cliMessage } from '@crm/shared/errors';
import { formatOf } from './read-records';
import { PushStopped } from './push-chunk';
import { pushFile } from './push-file';
import { progressReporter } from './progress';

/** Lines of an NDJSON file (its record count), read ahead so the progress can show an ETA. */
async function countLines(file: string): Promise<number | undefined> {
  if (formatOf(file) !== 'ndjson') return undefined;
  let lines = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    for (const byte of chunk) if (byte === 10) lines += 1;
  }
  return lines;
}

const USAGE = `Usage: npm run migrate:push -- --file <export> --entity <entity> --tenant <slug> --source <system> [options]

Pushes an export file to the platform's signed migration ingest (docs/migrate.md), signing every
request with SVC_MIGRATE_SIGNING_SECRET from the environment (the migrate service's secret).

  --file <path>     NDJSON (.ndjson, .jsonl), JSON array (.json) or CSV; each record with its external_id
  --entity <name>   ${MIGRATION_ENTITIES.join(', ')}
  --tenant <slug>   the tenant the records go to (its slug or id)
  --source <name>   the system they come from (hubspot, salesforce, ...)
  --url <url>       the platform's gateway (default http://localhost:8080)
  --chunk <n>       records per request (default 1000)
  --failed <path>   where refused records go (default <file>.failed.ndjson)
  -h, --help        this text

Under npm start the secret is in the development secrets file; its banner prints the command.
Exit 0 when every chunk was taken (refused records are in the failed file), 1 otherwise.
`;

const OPTIONS = {
  file: { type: 'string' },
  entity: { type: 'string' },
  tenant: { type: 'string' },
  source: { type: 'string' },
  url: { type: 'string', default: 'http://localhost:8080' },
  chunk: { type: 'string', default: '1000' },
  failed: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A usage mistake: its one line, and where the usage is. */
function usageError(message: string): number {
  process.stderr.write(`migrate:push: ${message} (see npm run migrate:push -- --help)\n`);
  return 1;
}

async function main(): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  try {
    ({ values } = parseArgs({ options: OPTIONS }));
  } catch (err) {
    // An unknown option, a missing value, a stray argument: Node's message names it.
    return usageError(cliMessage(err));
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const secret = process.env.SVC_MIGRATE_SIGNING_SECRET;
  const missing = (['file', 'entity', 'tenant', 'source'] as const).filter((k) => !values[k]);
  if (missing.length > 0 || !secret) {
    return usageError(
      `needs ${[...missing.map((m) => `--${m}`), ...(secret ? [] : ['SVC_MIGRATE_SIGNING_SECRET in the environment'])].join(', ')}`,
    );
  }
  if (!(MIGRATION_ENTITIES as readonly string[]).includes(values.entity as string)) {
    return usageError(`--entity must be one of: ${MIGRATION_ENTITIES.join(', ')}`);
  }
  const chunkSize = Number(values.chunk);
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    return usageError('--chunk must be a whole number of records per request');
  }
  const file = values.file as string;
  const failedFile = values.failed ?? `${file}.failed.ndjson`;
  try {
    const summary = await pushFile(
      {
        file,
        url: values.url as string,
        secret,
        tenant: values.tenant as string,
        source: values.source as string,
        entity: values.entity as string,
        chunkSize,
        failedFile,
      },
      progressReporter(process.stderr, await countLines(file)),
    );
    process.stdout.write(
      `${summary.received} records in ${summary.seconds} s: ${summary.created} created, ${summary.updated} updated, ${summary.failed} failed` +
        (summary.failed > 0 ? ` (see ${failedFile})` : '') +
        '\n',
    );
    return 0;
  } catch (err) {
    const reason = err instanceof PushStopped ? err.message : cliMessage(err);
    process.stderr.write(`migrate:push stopped: ${reason}\n`);
    return 1;
  }
}

void main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`migrate:push: ${cliMessage(err)}\n`);
    process.exit(1);
  },
);
