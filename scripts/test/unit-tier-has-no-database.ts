/**
 * Runs before each unit test file (jest project `unit`): the unit tier has no database and
 * no NATS. The global setup of a full run has put their addresses in the environment; this
 * file's copy of it loses them, so a unit test that reaches for Postgres fails at once
 * (testDb(): "DATABASE_URL is not set") instead of passing only in a full run. Such a test
 * belongs in the database tier (`*.db.test.ts`) or, through the gateway, in e2e (`*.e2e.test.ts`).
 */
for (const name of [
  'DATABASE_URL',
  'TEST_ADMIN_DATABASE_URL',
  'TEST_TEMPLATE_DATABASE',
  'TEST_NATS_URL',
]) {
  delete process.env[name];
}
