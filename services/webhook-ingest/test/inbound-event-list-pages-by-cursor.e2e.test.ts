import { withSystemScope } from '@crm/shared/db';
import { itKeepsTheCursorContract, tenantSession, testDb } from '@crm/test-kit';
import { sql } from 'kysely';
import { useReceiverStack } from './support/receiver-stack';

/*
 * The inbound delivery ledger's list pages by keyset like crm-api's lists (docs/api.md,
 * CursorPage) and keeps the shared cursor contract (libs/test-kit) through the real gateway, on
 * two tenants with the same rows (received in pairs at one time: the id breaks the tie).
 */
const database = testDb();
const stack = useReceiverStack();
afterAll(() => database.close());

const ROWS = 8;
let owner: string;
let other: string;

beforeAll(async () => {
  const sessions = [await tenantSession(stack, database), await tenantSession(stack, database)];
  for (const session of sessions) {
    await withSystemScope(database.db, (trx) =>
      sql`INSERT INTO inbound_events
          (tenant_id, provider, delivery_id, verification, outcome, received_at)
        SELECT ${session.tenantId}, 'email', ${`${session.tenantId}-`} || g, 'verified',
               CASE WHEN g <= 3 THEN 'failed' ELSE 'processed' END,
               timestamptz '2030-01-01T00:00:00Z' + (g / 2) * interval '1 minute'
        FROM generate_series(1, ${sql.lit(ROWS)}) g`.execute(trx),
    );
  }
  [owner, other] = sessions.map((s) => s.cookie);
});

describe('GET /api/integrations/inbound-events by cursor', () => {
  itKeepsTheCursorContract({
    url: () => stack.url,
    path: () => '/api/integrations/inbound-events',
    owner: () => owner,
    other: () => other,
    rows: ROWS,
    sorts: ['received_at'],
    filter: { query: 'outcome=failed', rows: 3 },
  });
});
