/**
 * `npm run migrate` (and the deploy migration job: node libs/shared/dist/db/migrate-cli.js):
 * applies pending migrations to DATABASE_URL and checks row-level security. A failure is one
 * line on stderr (no stack trace), exit 1.
 */
import { cliMessage } from '../errors';
import { createDb } from './create-db';
import { migrateToLatest } from './migrate';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write(
      'DATABASE_URL is not set. `npm start` migrates its embedded Postgres by itself; to migrate another database, set DATABASE_URL=postgres://user@host:5432/db\n',
    );
    process.exit(1);
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    // Otherwise pg reads the text as a socket path or host and fails with a misleading name.
    process.stderr.write(
      'DATABASE_URL must be a postgres:// URL, e.g. postgres://user@host:5432/db\n',
    );
    process.exit(1);
  }
  const { db, close } = createDb({
    connectionString: url,
    maxConnections: 1,
    applicationName: 'migrate-db',
  });
  try {
    const { applied } = await migrateToLatest(db);
    process.stdout.write(
      applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n',
    );
  } finally {
    await close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${cliMessage(err)}\n`);
  process.exit(1);
});
