/**
 * `npm run reconcile`: the admin command that repairs what a crash or a database cut can leave behind,
 * once, and exits: blog counters recounted from their records, likes and comments of deleted blogs
 * removed, and banner files no blog names (older than an hour) deleted. It reads the
 * same configuration as the server (MONGODB_URI, storage settings) and prints what it fixed.
 * Exit code 0 when it ran (whether or not anything needed fixing), 1 when it could not.
 */
import { refusedArguments } from './cli/arguments';
import { ConfigError } from './config';
import { loadProcessConfig } from './config/process';
import { connectDatabase, disconnectDatabase } from './lib/database';
import { createLogger } from './lib/logger';
import { createReconciliationService } from './services/reconciliation.service';
import { createBannerStorage } from './services/storage';

async function main(): Promise<number> {
  const refused = refusedArguments('reconcile', process.argv.slice(2));
  if (refused) {
    process.stderr.write(`${refused}\n`);
    return 1;
  }
  let config;
  try {
    config = loadProcessConfig().config;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  if (!config.mongodb.uri) {
    process.stderr.write('reconcile: set MONGODB_URI to the database to repair\n');
    return 1;
  }
  const logger = createLogger({
    level: config.logLevel === 'silent' ? 'info' : config.logLevel,
    json: config.isProduction,
    // stdout is the summary's one line
    toStderr: true,
  });
  await connectDatabase({ uri: config.mongodb.uri, serverApi: config.mongodb.serverApi, timeouts: config.database });
  try {
    const maintenance = createReconciliationService({
      storage: createBannerStorage(config.storage),
      logger,
      orphanMinAgeMs: config.maintenance.orphanMinAgeMs,
    });
    const counters = await maintenance.reconcileCounters();
    const banners = await maintenance.sweepOrphanBanners();
    process.stdout.write(
      `${JSON.stringify({
        blogsChecked: counters.blogsChecked,
        countersFixed: counters.fixes,
        orphanLikesRemoved: counters.orphanLikesRemoved,
        orphanCommentsRemoved: counters.orphanCommentsRemoved,
        bannerFilesChecked: banners.filesChecked,
        orphanBannersRemoved: banners.removed,
      })}\n`,
    );
    return 0;
  } finally {
    await disconnectDatabase();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`reconcile failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
