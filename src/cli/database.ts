/**
 * The database of an admin command: MONGODB_URI's, or without it the local development database under
 * .data/ (stop the API first: the local database takes one process at a time).
 */
import type { Config } from '../config';
import { DEVELOPMENT_DATA_DIR } from '../config/process';
import { startLocalDatabase, type LocalDatabase } from '../dev/local-database';
import { connectDatabase, disconnectDatabase } from '../lib/database';

/** Connects, runs `work`, and disconnects (and stops the local database) whatever happens. */
export async function withCommandDatabase<T>(config: Config, work: () => Promise<T>): Promise<T> {
  let localDatabase: LocalDatabase | undefined;
  let uri = config.mongodb.uri;
  if (!uri) {
    localDatabase = await startLocalDatabase({ persistent: true, dataDir: DEVELOPMENT_DATA_DIR, log: () => undefined });
    uri = localDatabase.uri;
  }
  try {
    await connectDatabase({ uri, serverApi: config.mongodb.serverApi, timeouts: config.database });
    return await work();
  } finally {
    await disconnectDatabase();
    await localDatabase?.stop();
  }
}
