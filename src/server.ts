/**
 * The process entry: reads config, picks and connects the database, listens, and shuts down cleanly.
 */
import 'dotenv/config';
import type { Server } from 'node:http';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config';
import { connectDatabase, disconnectDatabase } from './lib/database';
import { startLocalDatabase, type LocalDatabase } from './lib/local-database';
import { createLogger } from './lib/logger';

async function main(): Promise<void> {
  let loaded;
  try {
    loaded = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const { config, warnings } = loaded;
  const logger = createLogger({ level: config.logLevel, json: config.isProduction });
  warnings.forEach((warning) => logger.warn(warning));

  let localDatabase: LocalDatabase | undefined;
  let uri = config.mongodb.uri;
  if (uri) {
    logger.info('database: MONGODB_URI');
  } else {
    localDatabase = await startLocalDatabase({ persistent: true, log: (message) => logger.info(message) });
    uri = localDatabase.uri;
    logger.info(`database: ${localDatabase.kind} at ${uri} (set MONGODB_URI to use your own)`);
  }
  await connectDatabase({ uri, serverApi: config.mongodb.serverApi });

  const app = createApp({ config, logger });
  const server: Server = app.listen(config.port, () => {
    logger.info(`listening on http://localhost:${config.port}/api/v1`);
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(`${signal} received: closing`);
    server.close();
    await disconnectDatabase();
    await localDatabase?.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
