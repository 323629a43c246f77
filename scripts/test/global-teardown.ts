import { Client } from 'pg';
import { dropDatabase } from '../../libs/shared/src/db/database-url';

export default async function globalTeardown(): Promise<void> {
  const state = globalThis.__testDatabase;
  if (!state) return;
  if (state.embedded) {
    await state.embedded.stop();
  } else {
    // Whatever isolatedTestDb() left behind (a crashed worker) goes with the run's databases.
    const client = new Client({ connectionString: state.adminUrl });
    await client.connect();
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${state.name}%`],
    );
    await client.end();
    for (const { datname } of rows) await dropDatabase(state.adminUrl, datname);
  }
}
