// @ts-check
const os = require('node:os');
// JavaScript, not TypeScript: Jest would load ts-node and the TypeScript compiler only to read a .ts config.

// Two projects, one database server for both (tests/global-setup.ts; each test file uses a database of its own,
// see tests/helpers/test-app.ts):
// - app: the real app in process, through supertest; `npm run test:fast` runs only these, for quick local loops.
// - processes: tests that start real processes (the server, the CLI, redis-server, a code generator, the bench's floor) for what only a
//   process has: signals, shutdown, start-up failures, several instances side by side. `npm test` (and so CI) runs both.
const PROCESS_TESTS = [
  '<rootDir>/tests/graceful-shutdown.test.ts',
  '<rootDir>/tests/scale-out.test.ts',
  '<rootDir>/tests/database-outage.test.ts',
  '<rootDir>/tests/startup.test.ts',
  '<rootDir>/tests/make-admin.test.ts',
  '<rootDir>/tests/typed-client.test.ts',
  '<rootDir>/tests/bench-equivalence.test.ts',
];

/** @satisfies {import('jest').Config} */
const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  // Transpile only, file by file, with esbuild (tests/esbuild-transform.js).
  transform: { '^.+\\.ts$': '<rootDir>/tests/esbuild-transform.js' },
  globalSetup: '<rootDir>/tests/global-setup.ts',
  globalTeardown: '<rootDir>/tests/global-teardown.ts',
  // Every response of the real app is checked against the OpenAPI document (tests/helpers/contract.ts).
  setupFilesAfterEnv: ['<rootDir>/tests/helpers/contract-setup.ts', '<rootDir>/tests/helpers/assertion-count.ts'],
};

/** @type {import('jest').Config} */
const config = {
  projects: [
    {
      ...shared,
      displayName: 'app',
      testMatch: ['<rootDir>/tests/**/*.test.ts'],
      testPathIgnorePatterns: PROCESS_TESTS,
    },
    { ...shared, displayName: 'processes', testMatch: PROCESS_TESTS },
  ],
  testTimeout: 30_000,
  // One worker more than cores: the process tests mostly wait for the servers they started, and the
  // third worker keeps both cores busy with the app tests meanwhile (62 s → 52 s here, docs/testing.md).
  maxWorkers: process.env.JEST_MAX_WORKERS ?? os.availableParallelism() + 1,
};

module.exports = config;
