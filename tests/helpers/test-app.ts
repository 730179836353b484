/**
 * Builds the real app on a database of its own for one test file, every response of which is
 * checked against the OpenAPI document (tests/helpers/contract.ts). A test file makes one call at its top:
 *   const ctx = useTestApp();                 // beforeAll builds the app, afterAll drops the database
 *   const admin = ctx.signedInAdmin();        // signed up in beforeAll too, usable in every test
 *   it('...', async () => { await ctx.api.as(admin).get('/users/'); });
 * createTestContext() is the same without the hooks, for a file that builds its app inside a describe.
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
import { agent, type ApiAgent } from './agent';
import { withContractCheck } from './contract';
import { registerAdmin, registerUser, type SignedInUser } from './users';

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

/**
 * The settings that make buildApp() a production app (MONGODB_URI is only checked for presence: the app
 * uses this file's database connection); a test adds PUBLIC_URL and what it is about.
 */
export const PRODUCTION_ENV = { NODE_ENV: 'production', MONGODB_URI: 'mongodb://unused.invalid/', BCRYPT_COST: '10' };

export interface TestContextOptions {
  /** Settings this file's app runs with, over testEnvironment()'s. */
  env?: Record<string, string>;
  deps?: Partial<AppDeps>;
}

export async function createTestContext(options: TestContextOptions = {}): Promise<TestContext> {
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

/** This file's app, built in beforeAll; its properties may be read in tests and hooks, not at the top of the file. */
export interface TestApp extends Omit<TestContext, 'close'> {
  /** The API agent on this file's app (tests/helpers/agent.ts). */
  api: ApiAgent;
  /**
   * Something made in beforeAll, once the app is built (and after the fixtures declared before it), handed
   * out now and readable in every test: `const blog = ctx.fixture(() => createBlog(ctx.app, admin));`.
   */
  fixture<T extends object>(make: () => Promise<T>): T;
  /** An admin (admin@example.com unless given) signed up in beforeAll: a fixture. */
  signedInAdmin(email?: string): SignedInUser;
  /** A regular user signed up in beforeAll: a fixture. */
  signedInUser(): SignedInUser;
}

/** An object standing for one that exists only later: every read goes to `current()`. */
function lateBound<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(current(), key),
    has: (_, key) => Reflect.has(current(), key),
    ownKeys: () => Reflect.ownKeys(current()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(current(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}

/**
 * Registers this file's beforeAll (build the app) and afterAll (drop its database) and hands back the app.
 * `options` may be a function, for settings known only once an earlier beforeAll has run (a fake server's URL).
 */
export function useTestApp(options: TestContextOptions | (() => TestContextOptions) = {}): TestApp {
  let current: TestContext | undefined;
  const ready = (): TestContext => {
    if (!current) throw new Error('useTestApp: the app is built in beforeAll; read it inside a test or a hook');
    return current;
  };
  beforeAll(async () => {
    current = await createTestContext(typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    await current?.close();
    current = undefined;
  });
  const fixture = <T extends object>(make: () => Promise<T>): T => {
    let made: { value: T } | undefined;
    beforeAll(async () => {
      made = { value: await make() };
    });
    return lateBound(() => {
      if (!made) throw new Error('useTestApp: fixtures are made in beforeAll; read them inside a test or a hook');
      return made.value;
    });
  };
  const own = {
    api: agent(() => ready().app),
    fixture,
    signedInAdmin: (email?: string) => fixture(() => registerAdmin(ready().app, email)),
    signedInUser: () => fixture(() => registerUser(ready().app)),
  };
  // app, config, logger, uploadsDir and buildApp are read from the context once beforeAll has built it
  return new Proxy(own as TestApp, {
    get: (target, key) => (key in target ? Reflect.get(target, key) : Reflect.get(ready(), key)),
  });
}
