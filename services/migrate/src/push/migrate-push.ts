/**
 * `npm run migrate:push -- --file export.ndjson --entity leads --tenant acme --source hubspot
 *  [--url http://localhost:8080] [--chunk 1000] [--failed failed.ndjson]`
 *
 * Pushes an export file (NDJSON, JSON array or CSV; every record with its `external_id`) to the
 * platform's signed migration ingest, signing each request with SVC_MIGRATE_SIGNING_SECRET.
 * Exits 0 when every chunk was taken (refused records are in the failed file), 1 otherwise.
 */
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { MIGRATION_ENTITIES } from '@crm/shared/db';
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

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      file: { type: 'string' },
      entity: { type: 'string' },
      tenant: { type: 'string' },
      source: { type: 'string' },
      url: { type: 'string', default: 'http://localhost:8080' },
      chunk: { type: 'string', default: '1000' },
      failed: { type: 'string' },
    },
  });
  const secret = process.env.SVC_MIGRATE_SIGNING_SECRET;
  const missing = (['file', 'entity', 'tenant', 'source'] as const).filter((k) => !values[k]);
  if (missing.length > 0 || !secret) {
    process.stderr.write(
      `migrate:push needs ${[...missing.map((m) => `--${m}`), ...(secret ? [] : ['SVC_MIGRATE_SIGNING_SECRET in the environment'])].join(', ')}\n`,
    );
    return 1;
  }
  if (!(MIGRATION_ENTITIES as readonly string[]).includes(values.entity as string)) {
    process.stderr.write(`--entity must be one of: ${MIGRATION_ENTITIES.join(', ')}\n`);
    return 1;
  }
  const chunkSize = Number(values.chunk);
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    process.stderr.write('--chunk must be a whole number of records per request\n');
    return 1;
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
    const reason = err instanceof PushStopped || err instanceof Error ? err.message : String(err);
    process.stderr.write(`migrate:push stopped: ${reason}\n`);
    return 1;
  }
}

void main().then((code) => process.exit(code));
