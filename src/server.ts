/**
 * The process entry: reads config, picks and connects the database (and Redis when configured),
 * listens, and shuts down gracefully on SIGTERM/SIGINT.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import mongoose from 'mongoose';
import { createApp } from './app';
import { ConfigError } from './config';
import { DEVELOPMENT_DATA_DIR, DEVELOPMENT_SECRETS_FILE, loadProcessConfig } from './config/process';
import type { ReadinessCheck } from './controllers/health.controller';
import { connectDatabase, disconnectDatabase } from './lib/database';
import { startDatabaseWatchdog } from './lib/database-watchdog';
import type { LocalDatabase } from './dev/local-database';
import { createLogger, type Logger } from './lib/logger';
import { createMetrics } from './lib/metrics';
import { monitorMongoClient } from './lib/mongodb-metrics';
import {
  closeRedis,
  createRedisRateLimitStore,
  openRedis,
  pingRedis,
  RedisAuthChanges,
  type RedisClient,
} from './lib/redis';
import { settleWithin } from './lib/timeout';
import { createReconciliationService } from './services/reconciliation.service';
import { createBannerStorage } from './services/storage';
import { backfillUsernameKeys } from './models/user.migrations';

async function main(): Promise<void> {
  let loaded;
  try {
    loaded = loadProcessConfig({ developmentSecretsFile: DEVELOPMENT_SECRETS_FILE });
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
  logger.info(
    config.corsOrigins.length > 0
      ? `CORS: browsers may call with credentials from ${config.corsOrigins.join(', ')}`
      : 'CORS: no browser origin allowed (set CORS_ORIGINS, e.g. http://localhost:5173)',
  );
  logger.info(
    `refresh cookie: SameSite=${config.refreshCookie.sameSite}${config.refreshCookie.secure ? ', Secure' : ''}` +
      (config.publicReads ? '; PUBLIC_READS: anonymous visitors may read published blogs and comments' : ''),
  );

  let localDatabase: LocalDatabase | undefined;
  let uri = config.mongodb.uri;
  if (uri) {
    logger.info('database: MONGODB_URI');
  } else {
    // development only: loaded when needed, so production never loads it (nor its dev dependencies)
    const { startLocalDatabase } = await import('./dev/local-database');
    localDatabase = await startLocalDatabase({
      persistent: true,
      dataDir: DEVELOPMENT_DATA_DIR,
      log: (message) => logger.info(message),
    });
    uri = localDatabase.uri;
    logger.info(`database: ${localDatabase.kind} at ${uri} (set MONGODB_URI to use your own)`);
  }
  await connectDatabase({ uri, serverApi: config.mongodb.serverApi, timeouts: config.database });
  const watchdog = startDatabaseWatchdog({
    intervalMs: config.database.watchdogIntervalMs,
    unreachableMs: config.database.watchdogUnreachableMs,
    logger,
  });
  // Metrics of this process's one MongoDB client (and Redis client, below) go to the app's /metrics.
  const metrics = createMetrics();
  if (config.metrics.enabled) {
    // The watchdog may replace the driver's client (reopenDatabase): watch each client once, the new one too.
    const watched = new WeakSet<object>();
    const watchClient = () => {
      const client = mongoose.connection.getClient();
      if (watched.has(client)) return;
      watched.add(client);
      monitorMongoClient(client, metrics);
    };
    watchClient();
    mongoose.connection.on('connected', watchClient);
  }
  await backfillUsernameKeys(logger);

  // Redis carries the shared rate-limit counters and the announcements of auth changes; without it each
  // instance counts on its own, and hears only its own announcements.
  let redis: RedisClient | undefined;
  let authChanges: RedisAuthChanges | undefined;
  const readinessChecks: Record<string, ReadinessCheck> = {};
  if (config.redisUrl) {
    const client = await openRedis({ url: config.redisUrl, logger });
    redis = client;
    authChanges = await RedisAuthChanges.open(client, logger);
    readinessChecks.redis = () => pingRedis(client);
    metrics.watchRedis(() => client.isReady);
    logger.info('rate limit and auth changes: shared through Redis (REDIS_URL)');
  } else {
    logger.info('rate limit: counted in this process only (set REDIS_URL to share it between instances)');
  }

  const storage = createBannerStorage(config.storage);
  logger.info(`banners: ${storage.kind}`);

  // Counters that heal: once in the background now, then on a schedule (also `npm run reconcile`).
  const maintenance = createReconciliationService({
    storage,
    logger,
    orphanMinAgeMs: config.maintenance.orphanMinAgeMs,
  });
  const maintain = () => maintenance.runMaintenance();
  if (config.maintenance.onStart) setTimeout(() => void maintain(), 0).unref();
  const maintenanceTimer =
    config.maintenance.intervalMs > 0 ? setInterval(() => void maintain(), config.maintenance.intervalMs) : undefined;
  maintenanceTimer?.unref();

  let shuttingDown = false;
  const app = createApp({
    config,
    logger,
    storage,
    rateLimitStore: redis && createRedisRateLimitStore(redis),
    loginThrottleStores: redis && {
      perAccount: createRedisRateLimitStore(redis, 'login-account:'),
      perIp: createRedisRateLimitStore(redis, 'login-ip:'),
    },
    readinessChecks,
    isShuttingDown: () => shuttingDown,
    isLive: () => watchdog.healthy(),
    metrics,
    authChanges,
  });
  // Node's defaults would hold a slow body for 300 s; each bound is explicit and configurable. Node
  // enforces the first two on a sweep of the connections, every 30 s unless told: every second here.
  const server: Server = createServer(
    {
      headersTimeout: config.http.headersTimeoutMs,
      requestTimeout: config.http.requestTimeoutMs,
      keepAliveTimeout: config.http.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.http.headersTimeoutMs),
    },
    app,
  );
  try {
    await listen(server, config.port);
  } catch (error) {
    // nothing else is holding the process open: release the database before the one-line report
    watchdog.stop();
    await authChanges?.close();
    if (redis) await closeRedis(redis);
    await disconnectDatabase();
    await localDatabase?.stop();
    throw error;
  }

  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    watchdog.stop();
    clearInterval(maintenanceTimer);
    // First /readyz answers 503 while everything is still served, so load balancers stop sending new
    // requests before the listener closes: nothing already on its way is refused or reset.
    if (config.shutdownReadinessDelayMs > 0) {
      logger.info(
        `${signal}: /readyz answers 503 from now on; still serving for ${config.shutdownReadinessDelayMs} ms before draining`,
      );
      await new Promise((resolve) => setTimeout(resolve, config.shutdownReadinessDelayMs));
    }
    // drainServer closes the listening socket before it first awaits, so when this line is written new
    // connections are already refused (the shutdown test relies on that order)
    const drained = drainServer(server, config.shutdownGraceMs, logger);
    logger.info(`${signal} received: finishing in-flight requests (grace ${config.shutdownGraceMs} ms)`);
    await drained;
    await authChanges?.close();
    if (redis) await closeRedis(redis);
    await disconnectDatabase();
    await localDatabase?.stop();
    logger.info('shutdown complete');
    process.exit(0);
  };
  const onSignal = (signal: string) => {
    shutdown(signal).catch((error: unknown) => {
      logger.error('shutdown failed', { error: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  // Written once the signal handlers are in place: whoever waits for this line may stop the process at once.
  // The port actually bound: PORT=0 asks the system for a free one (tests start servers that way).
  const { port } = server.address() as AddressInfo;
  logger.info(`listening on http://localhost:${port}/api/v1`, { port });
}

/** Listens, or fails with one line: a busy port is the usual reason and says what to do. */
function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.listen(port);
    server.once('listening', () => resolve());
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(new Error(`port ${port} is already in use (another instance running?): stop it or set PORT`));
      else if (error.code === 'EACCES')
        reject(new Error(`port ${port} needs privileges this process lacks: set PORT above 1023`));
      else reject(error);
    });
  });
}

/**
 * Stops accepting connections at once, lets requests in flight finish for up to `graceMs`, then
 * closes whatever connections remain. A keep-alive connection is closed as soon as it falls idle:
 * server.close() closes only the connections idle at that moment, and one whose response ends later
 * would stay open for the client's next request, and the next, holding shutdown to the grace period.
 */
async function drainServer(server: Server, graceMs: number, logger: Logger): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
  try {
    if ((await settleWithin(closed, graceMs, 'grace over' as const)) === 'grace over') {
      logger.warn(`requests still in flight after ${graceMs} ms: closing their connections`);
      server.closeAllConnections();
      await closed;
    }
  } finally {
    clearInterval(idleSweep);
  }
}

main().catch((error: unknown) => {
  // one line, no stack: the reason is what the operator needs (a database driver's message may span lines)
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`Start-up failed: ${message.split('\n')[0].trim()}\n`);
  process.exit(1);
});
