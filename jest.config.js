// One jest run over every package, in three tiers (jest projects), named by the test file:
//   unit      `*.test.ts`      no database, no NATS, no gateway: pure functions and apps on fakes;
//   database  `*.db.test.ts`   a real Postgres (and NATS where a test says so), no gateway;
//   e2e       `*.e2e.test.ts`  through the real gateway: a signed-in session, a service behind it.
// `npm test` runs all three; `npm run test:unit` / `test:db` / `test:e2e` one tier.
// ts-jest only transpiles (isolatedModules); `npm run typecheck` type-checks.
// `npm test` caps each worker's heap at 2 GB (NODE_OPTIONS in package.json), and restarts a
// worker whose memory is past 1 GB after a file (workerIdleMemoryLimit below): on a machine with
// plenty of memory V8 otherwise lets a worker's garbage grow to 3 GB and more (every test file
// loads a gateway and a service), and a worker in a multi-second GC when the run ends is one
// jest reports as "failed to exit gracefully" and kills.
// The global setup gives the run one fresh, migrated database (embedded Postgres when
// DATABASE_URL is unset); it belongs to the database and e2e tiers, so a unit-only run
// starts none, and a unit test file that reaches for the database fails (no DATABASE_URL).

const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/scripts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
  },
  moduleNameMapper: {
    '^@crm/shared/(.*)$': '<rootDir>/libs/shared/src/$1',
    '^@crm/records$': '<rootDir>/libs/records/src/index.ts',
    '^@crm/test-kit$': '<rootDir>/libs/test-kit/src/index.ts',
    '^@crm/gateway$': '<rootDir>/services/gateway/src/index.ts',
  },
};

const withDatabase = {
  globalSetup: '<rootDir>/scripts/test/global-setup.ts',
  globalTeardown: '<rootDir>/scripts/test/global-teardown.ts',
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['**/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.db\\.test\\.ts$', '\\.e2e\\.test\\.ts$'],
      setupFiles: ['<rootDir>/scripts/test/unit-tier-has-no-database.ts'],
    },
    {
      ...shared,
      ...withDatabase,
      displayName: 'database',
      testMatch: ['**/test/**/*.db.test.ts'],
    },
    {
      ...shared,
      ...withDatabase,
      displayName: 'e2e',
      testMatch: ['**/test/**/*.e2e.test.ts'],
    },
  ],
  testTimeout: 30000,
  maxWorkers: 2,
  // A worker keeps what each test file it ran leaves behind (apps, pools, compiled modules), and
  // with ~170 files one reached the 2 GB heap cap and died mid-file. Past 1 GB after a file,
  // jest replaces the worker with a fresh one instead.
  workerIdleMemoryLimit: '1GB',
};
