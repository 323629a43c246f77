import { hashPassword } from '../../libs/shared/src/crypto';
import { withSystemScope, type Db } from '../../libs/shared/src/db';
import { InProcessBus, type EventBus } from '../../libs/shared/src/events';
import { silentLogger } from '../../libs/shared/src/logger';
import type { AppDeps } from '../../libs/shared/src/service';

/** What every benchmarked app is built from: the bench database, silent logs, one bus. */
export function benchDeps(
  database: Db,
  bus: EventBus = new InProcessBus({ logger: silentLogger() }),
): AppDeps {
  return {
    logger: silentLogger(),
    db: database.db,
    pool: database.pool,
    pingDatabase: database.ping,
    bus,
    version: 'bench',
    internalTokenSecret: 'bench-internal-token-secret-0123456789',
    bodyLimitBytes: 1_048_576,
  };
}

/** An owner of `tenantId` signed in through the gateway at `gwUrl`: the Cookie header. */
export async function benchSession(
  database: Db,
  tenantId: string,
  gwUrl: string,
  name: string,
): Promise<string> {
  const email = `${name}-${process.pid}@example.test`;
  await withSystemScope(database.db, async (trx) => {
    const user = await trx
      .insertInto('users')
      .values({ email, name: 'bench', password_hash: await hashPassword('bench-password') })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('tenant_users')
      .values({ tenant_id: tenantId, user_id: user.id, role: 'owner', status: 'active' })
      .execute();
  });
  const signIn = await fetch(`${gwUrl}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'bench-password' }),
  });
  return (signIn.headers.get('set-cookie') ?? '').split(';')[0];
}
