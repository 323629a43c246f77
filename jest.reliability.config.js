// The reliability suite (`npm run test:reliability`, docs/reliability.md): real
// service processes, a nats-server of its own, a Postgres it can cut off. Not one of `npm test`'s
// projects: it stops and kills processes and takes minutes, so it runs alone, one file at a time.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test/reliability'],
  testMatch: ['**/*.reliability.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
  },
  moduleNameMapper: {
    '^@crm/shared/(.*)$': '<rootDir>/libs/shared/src/$1',
    '^@crm/records$': '<rootDir>/libs/records/src/index.ts',
    '^@crm/test-kit$': '<rootDir>/libs/test-kit/src/index.ts',
    '^@crm/gateway$': '<rootDir>/services/gateway/src/index.ts',
  },
  globalSetup: '<rootDir>/test/reliability/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/reliability/support/global-teardown.ts',
  maxWorkers: 1,
  testTimeout: 180000,
};
