import { randomUUID } from 'node:crypto';
import { createDb, dropDatabase, ensureDatabase, withDatabase, type Db } from '@crm/shared/db';

export interface OwnDatabase {
  url: string;
  /** A pool in the test process, to read rows back. */
  db: Db;
  drop(): Promise<void>;
}

/**
 * A migrated database of the test's own (copied from the run's template): the services' outbox
 * relays publish every pending event they see, so each test sees its own events only.
 */
export async function ownDatabase(label: string): Promise<OwnDatabase> {
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL ?? '';
  const template = process.env.TEST_TEMPLATE_DATABASE ?? '';
  if (!adminUrl || !template) throw new Error('run through jest.reliability.config.js');
  const name = `${template.replace(/_tpl$/, '')}_${label}_${randomUUID().slice(0, 8)}`;
  await ensureDatabase(adminUrl, name, template);
  const url = withDatabase(adminUrl, name);
  const db = createDb({ connectionString: url, maxConnections: 4 });
  return {
    url,
    db,
    async drop() {
      await db.close();
      await dropDatabase(adminUrl, name);
    },
  };
}
