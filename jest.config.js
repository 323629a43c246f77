// One jest run over every package. ts-jest only transpiles (isolatedModules); `npm run typecheck` type-checks.
// The global setup gives the whole run one fresh, migrated database (embedded Postgres when DATABASE_URL is unset).
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/scripts'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
  },
  moduleNameMapper: {
    '^@crm/shared/(.*)$': '<rootDir>/libs/shared/src/$1',
    '^@crm/records$': '<rootDir>/libs/records/src/index.ts',
  },
  globalSetup: '<rootDir>/scripts/test/global-setup.ts',
  globalTeardown: '<rootDir>/scripts/test/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
