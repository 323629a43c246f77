import { Client } from 'pg';

/** The same server URL pointing at another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

const SAFE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function assertSafeName(database: string): void {
  if (!SAFE_NAME.test(database)) throw new Error(`unsafe database name: ${database}`);
}

async function onServer<T>(adminUrl: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates `database` on the server of `adminUrl` unless it exists (optionally as a copy of `template`). */
export async function ensureDatabase(
  adminUrl: string,
  database: string,
  template?: string,
): Promise<void> {
  assertSafeName(database);
  if (template) assertSafeName(template);
  await onServer(adminUrl, async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      database,
    ]);
    if (rowCount) return;
    const from = template ? ` TEMPLATE ${template}` : '';
    await client.query(`CREATE DATABASE ${database}${from}`).catch((err: { code?: string }) => {
      if (err.code !== '42P04') throw err; // created concurrently
    });
  });
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  assertSafeName(database);
  await onServer(adminUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`),
  );
}
