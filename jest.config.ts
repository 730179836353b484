import type { Config } from 'jest';

// Test files run in parallel, each on a database of its own (see tests/helpers/test-app.ts);
// one database server for the whole run is started in tests/global-setup.ts.
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/tests/global-setup.ts',
  globalTeardown: '<rootDir>/tests/global-teardown.ts',
  // Every response of the real app is checked against the OpenAPI document (tests/helpers/contract.ts).
  setupFilesAfterEnv: ['<rootDir>/tests/helpers/contract-setup.ts'],
  testTimeout: 30_000,
  maxWorkers: process.env.JEST_MAX_WORKERS ?? '50%',
};

export default config;
