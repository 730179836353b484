/**
 * Builds the real app on a database of its own for one test file, every response of which is
 * checked against the OpenAPI document (tests/helpers/contract.ts):
 *   const ctx = await createTestContext();   // in beforeAll
 *   await ctx.close();                       // in afterAll: drops the database
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import mongoose from 'mongoose';
import { createApp, type AppDeps } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { connectDatabase } from '../../src/lib/database';
import { createLogger, type Logger } from '../../src/lib/logger';
import { withContractCheck } from './contract';

export interface TestContext {
  app: Express;
  config: Config;
  logger: Logger;
  /** This file's own uploads folder (local banner storage), removed by close(). */
  uploadsDir: string;
  /** Another app with other settings, on this file's database and with its JWT secrets (e.g. a short token lifetime). */
  buildApp(env: Record<string, string>): { app: Express; config: Config };
  close(): Promise<void>;
}

/** The environment every test app starts from; a test overrides what it is about. */
export function testEnvironment(overrides: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
    BCRYPT_COST: '4',
    RATE_LIMIT_MAX: '100000',
    ADMIN_EMAILS: 'admin@example.com,Chief@Example.com',
    ...overrides,
  };
}

export async function createTestContext(
  options: { env?: Record<string, string>; deps?: Partial<AppDeps> } = {},
): Promise<TestContext> {
  const uri = process.env.TEST_MONGODB_URI;
  if (!uri) throw new Error('TEST_MONGODB_URI is not set: run the tests through jest (tests/global-setup.ts)');
  const dbName = `test_${process.env.JEST_WORKER_ID ?? '0'}_${randomBytes(6).toString('hex')}`;
  await connectDatabase({ uri, dbName });

  const uploadsDir = mkdtempSync(path.join(tmpdir(), 'blog-api-uploads-'));
  // fixed once, secrets included, so that apps from buildApp accept this app's tokens
  const env = testEnvironment({ UPLOADS_DIR: uploadsDir, ...options.env }) as Record<string, string>;
  const { config } = loadConfig(env);
  const logger = createLogger({ level: config.logLevel, json: true });
  const app = withContractCheck(createApp({ config, logger, ...options.deps }));
  return {
    app,
    config,
    logger,
    uploadsDir,
    buildApp(overrides) {
      const other = loadConfig({ ...env, ...overrides }).config;
      return { app: withContractCheck(createApp({ config: other, logger, ...options.deps })), config: other };
    },
    async close() {
      await mongoose.connection.dropDatabase();
      await mongoose.disconnect();
      rmSync(uploadsDir, { recursive: true, force: true });
    },
  };
}
