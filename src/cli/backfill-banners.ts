/**
 * `npm run banners:backfill`: makes the variants of banners stored before variants existed (files beside
 * them on local storage, URLs on Cloudinary), once, and exits; safe to run again, or on two machines at
 * once (services/banner-backfill.service.ts). It reads the server's configuration (MONGODB_URI, or
 * without it the local development database under .data/, the API stopped; the storage settings) and
 * prints what it did as one JSON line. Exit code 0 when every banner has its variants, 1 otherwise.
 */
import { ConfigError } from '../config';
import { DEVELOPMENT_DATA_DIR, DEVELOPMENT_SECRETS_FILE, loadProcessConfig } from '../config/process';
import { startLocalDatabase, type LocalDatabase } from '../dev/local-database';
import { connectDatabase, disconnectDatabase } from '../lib/database';
import { createLogger } from '../lib/logger';
import { createBannerBackfillService } from '../services/banner-backfill.service';
import { createBannerStorage } from '../services/storage';

async function main(): Promise<number> {
  const { config } = loadProcessConfig({ developmentSecretsFile: DEVELOPMENT_SECRETS_FILE });
  const logger = createLogger({
    level: config.logLevel === 'silent' ? 'warn' : config.logLevel,
    json: config.isProduction,
  });
  let localDatabase: LocalDatabase | undefined;
  let uri = config.mongodb.uri;
  if (!uri) {
    localDatabase = await startLocalDatabase({ persistent: true, dataDir: DEVELOPMENT_DATA_DIR, log: () => undefined });
    uri = localDatabase.uri;
  }
  try {
    await connectDatabase({ uri, serverApi: config.mongodb.serverApi, timeouts: config.database });
    const backfill = createBannerBackfillService({ storage: createBannerStorage(config.storage), logger });
    const report = await backfill.backfill();
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return report.failed.length === 0 ? 0 : 1;
  } finally {
    await disconnectDatabase();
    await localDatabase?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `banners:backfill: ${error instanceof ConfigError ? 'configuration error: ' : ''}${message.split('\n')[0]}\n`,
    );
    process.exit(1);
  },
);
