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
  await buildEntryPoints();
  if (process.env.MONGODB_URI) {
    process.env.TEST_MONGODB_URI = process.env.MONGODB_URI;
    return;
  }
  const database = await startLocalDatabase({
    persistent: false,
    quickCompile: true,
    log: (message) => process.stderr.write(`${message}\n`),
  });
  globalThis.testDatabase = database;
  process.env.TEST_MONGODB_URI = database.uri;
  process.stderr.write(`\ntest database: ${database.kind}\n`);
}
