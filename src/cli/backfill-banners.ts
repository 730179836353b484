/**
 * `npm run banners:backfill`: makes the variants of banners stored before variants existed (files beside
 * them on local storage, URLs on Cloudinary), once, and exits; safe to run again, or on two machines at
 * once (services/banner-backfill.service.ts). It reads the server's configuration (MONGODB_URI, or
 * without it the local development database under .data/, the API stopped; the storage settings) and
 * prints what it did as one JSON line. Exit code 0 when every banner has its variants, 1 otherwise.
 */
import { ConfigError } from '../config';
import { refusedArguments } from './arguments';
import { DEVELOPMENT_SECRETS_FILE, loadProcessConfig } from '../config/process';
import { createLogger } from '../lib/logger';
import { createBannerBackfillService } from '../services/banner-backfill.service';
import { createBannerStorage } from '../services/storage';
import { withCommandDatabase } from './database';

async function main(): Promise<number> {
  const refused = refusedArguments('banners:backfill', process.argv.slice(2));
  if (refused) {
    process.stderr.write(`${refused}\n`);
    return 1;
  }
  const { config } = loadProcessConfig({ developmentSecretsFile: DEVELOPMENT_SECRETS_FILE });
  const logger = createLogger({
    level: config.logLevel === 'silent' ? 'warn' : config.logLevel,
    json: config.isProduction,
    // stdout is the report's one line
    toStderr: true,
  });
  const report = await withCommandDatabase(config, () =>
    createBannerBackfillService({ storage: createBannerStorage(config.storage), logger }).backfill(),
  );
  process.stdout.write(`${JSON.stringify(report)}\n`);
  return report.failed.length === 0 ? 0 : 1;
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
