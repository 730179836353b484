/**
 * Starts one database server for the whole test run, unless MONGODB_URI names one already.
 * Test files each use a database of their own on it (tests/helpers/test-app.ts).
 * Bundles the entry points the process tests run first (tests/helpers/test-build.ts).
 */
import { startLocalDatabase, type LocalDatabase } from '../src/dev/local-database';
import { buildEntryPoints } from './helpers/test-build';

declare global {
  var testDatabase: LocalDatabase | undefined;
}

export default async function globalSetup(): Promise<void> {
  // side by side: the bundles take esbuild's time, the database a JVM's start
  const [database] = await Promise.all([startDatabase(), buildEntryPoints()]);
  process.env.TEST_MONGODB_URI = database?.uri ?? process.env.MONGODB_URI;
  if (database) {
    globalThis.testDatabase = database;
    process.stderr.write(`\ntest database: ${database.kind}\n`);
  }
}

/** The run's own database server, or none when MONGODB_URI names one already. */
async function startDatabase(): Promise<LocalDatabase | undefined> {
  if (process.env.MONGODB_URI) return undefined;
  return startLocalDatabase({
    persistent: false,
    quickCompile: true,
    log: (message) => process.stderr.write(`${message}\n`),
  });
}
