/**
 * The process entry: reads config, picks and connects the database (and Redis when configured),
 * listens, and shuts down gracefully on SIGTERM/SIGINT. `main` is the list of start-up steps; each step
 * is a function below it, in the same order. A step that fails ends the process with one line (the end of
 * this file); only a failed listen releases what the steps before it opened.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import mongoose from 'mongoose';
import { createApp } from './app';
import { ConfigError, type Config, type LoadedConfig } from './config';
import {
  DEVELOPMENT_DATA_DIR,
  DEVELOPMENT_SECRETS_FILE,
  loadProcessConfig,
  productionRequested,
} from './config/process';
import type { ReadinessCheck } from './controllers/health.controller';
import { answerClientError } from './lib/client-errors';
import { connectDatabase, disconnectDatabase } from './lib/database';
import { startDatabaseWatchdog, type DatabaseWatchdog } from './lib/database-watchdog';
import type { LocalDatabase } from './dev/local-database';
import { createLogger, type Logger } from './lib/logger';
import { createMetrics, type AppMetrics } from './lib/metrics';
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
import { createBannerStorage, type BannerStorage } from './services/storage';
import { backfillEmailForms, backfillUsernameKeys } from './models/user.migrations';
import { backfillBlogText } from './models/blog.migrations';
import { createWebhookEventRecorder } from './services/webhook-events';
import { createPublishScheduler } from './services/publish-scheduler';
import { createTrashService } from './services/trash.service';
import { createDeliveryWorker } from './services/webhook-delivery';

/** How often each instance looks for scheduled posts that came due: the bound on their lateness. */
const PUBLISH_INTERVAL_MS = 5000;
/** How often each instance looks for webhook deliveries due. */
const DELIVERY_INTERVAL_MS = 2000;
/** The app's and the scheduler's one recorder: each event becomes a delivery per subscribed webhook. */
const EVENTS = createWebhookEventRecorder();

/** The start-up steps, in order: what each step needs, the steps before it made. */
async function main(): Promise<void> {
  const { config, warnings } = loadConfigOrExit();
  const logger = startLogger(config, warnings);
  const database = await startDatabase(config, logger);
  const metrics = startMetrics(config);
  await backfillUsernameKeys(logger);
  const redis = await startRedis(config, logger, metrics);
  const storage = startBannerStorage(config, logger);
  const lifecycle: Lifecycle = { shuttingDown: false };
  const app = buildApp({ config, logger, storage, metrics, database, redis, lifecycle });
  const server = createHttpServer(config, app);
  await listenOrRelease(server, config.port, { database, redis });
  // The port is this process's: only now its work in the background, which a start-up that failed
  // (another instance on the port) would have left failing on the database it released.
  // Reads work out a missing card on the spot meanwhile; an older blog is found by search once its terms are in.
  void backfillBlogText(logger);
  // it reads every account's address: in the background, so that many accounts do not hold start-up
  void backfillEmailForms(logger);
  const maintenanceTimer = scheduleMaintenance(config, logger, storage);
  const background = startBackgroundWork(config, logger, metrics);
  shutDownOnSignals({ config, logger, server, database, redis, maintenanceTimer, background, lifecycle });
  announceListening(server, logger);
}

/** The database this process uses, and what watches it. */
interface StartedDatabase {
  watchdog: DatabaseWatchdog;
  /** Started by this process (development, without MONGODB_URI): stopped with it. */
  localDatabase?: LocalDatabase;
}

/** Redis when REDIS_URL is set: the client, the auth-change announcements and the /readyz check on it. */
interface SharedRedis {
  client?: RedisClient;
  authChanges?: RedisAuthChanges;
  readinessChecks: Record<string, ReadinessCheck>;
}

/** Read by /readyz (through createApp): true once a signal began the shutdown. */
interface Lifecycle {
  shuttingDown: boolean;
}

/** The configuration, or exit 1 with one line naming the setting at fault. */
function loadConfigOrExit(): LoadedConfig {
  try {
    return loadProcessConfig({ developmentSecretsFile: DEVELOPMENT_SECRETS_FILE });
  } catch (error) {
    if (error instanceof ConfigError) exitWith(`Configuration error: ${error.message}`);
    throw error;
  }
}

/**
 * Ends start-up with one line on stderr, before any logger exists: in production a JSON line as the
 * logger's are (a log collector parses every line), else the text alone.
 */
function exitWith(message: string): never {
  const line = productionRequested()
    ? JSON.stringify({ level: 'error', message, timestamp: new Date().toISOString() })
    : message;
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

/** The logger, which first says what the configuration left to chance: warnings, CORS, the refresh cookie. */
function startLogger(config: Config, warnings: readonly string[]): Logger {
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
  const { smtp, directory } = config.mail;
  logger.info(
    smtp
      ? `mail: through ${smtp.host}:${smtp.port} as ${smtp.from}`
      : directory
        ? `mail: written to ${directory}/ as .eml files (no SMTP_URL)`
        : 'mail: off (no SMTP_URL)',
  );
  if (config.emailVerification !== 'off') logger.info(`email verification: ${config.emailVerification}`);
  return logger;
}

/** Connects MONGODB_URI, or in development a local database started here, and watches the connection. */
async function startDatabase(config: Config, logger: Logger): Promise<StartedDatabase> {
  const { uri, localDatabase } = await pickDatabase(config, logger);
  await connectDatabase({
    uri,
    serverApi: config.mongodb.serverApi,
    timeouts: config.database,
    monitorCommands: config.metrics.commands,
  });
  const watchdog = startDatabaseWatchdog({
    intervalMs: config.database.watchdogIntervalMs,
    unreachableMs: config.database.watchdogUnreachableMs,
    logger,
  });
  return { watchdog, localDatabase };
}

async function pickDatabase(config: Config, logger: Logger): Promise<{ uri: string; localDatabase?: LocalDatabase }> {
  if (config.mongodb.uri) {
    logger.info('database: MONGODB_URI');
    return { uri: config.mongodb.uri };
  }
  // development only: loaded when needed, so production never loads it (nor its dev dependencies)
  const { startLocalDatabase } = await import('./dev/local-database');
  const localDatabase = await startLocalDatabase({
    persistent: true,
    dataDir: DEVELOPMENT_DATA_DIR,
    log: (message) => logger.info(message),
  });
  logger.info(`database: ${localDatabase.kind} at ${localDatabase.uri} (set MONGODB_URI to use your own)`);
  return { uri: localDatabase.uri, localDatabase };
}

/** Metrics of this process's one MongoDB client (and Redis client, once open) go to the app's /metrics. */
function startMetrics(config: Config): AppMetrics {
  const metrics = createMetrics({ commandDurations: config.metrics.commands });
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
  return metrics;
}

/**
 * Redis carries the shared rate-limit counters and the announcements of auth changes; without it each
 * instance counts on its own, and hears only its own announcements.
 */
async function startRedis(config: Config, logger: Logger, metrics: AppMetrics): Promise<SharedRedis> {
  if (!config.redisUrl) {
    logger.info('rate limit: counted in this process only (set REDIS_URL to share it between instances)');
    return { readinessChecks: {} };
  }
  const client = await openRedis({ url: config.redisUrl, logger });
  // Redis that did not answer the first connection will not answer the second at once: no second wait.
  const authChanges = await RedisAuthChanges.open(client, logger, client.isReady ? undefined : 0);
  const readinessChecks = { redis: () => pingRedis(client) };
  metrics.watchRedis(() => client.isReady);
  logger.info('rate limit and auth changes: shared through Redis (REDIS_URL)');
  return { client, authChanges, readinessChecks };
}

function startBannerStorage(config: Config, logger: Logger): BannerStorage {
  const storage = createBannerStorage(config.storage);
  logger.info(`banners: ${storage.kind}`);
  // said now rather than at the first upload; reads need no banner storage, so the API starts all the same
  storage.check().catch((error: Error) => logger.error(`banners: ${error.message}: uploads fail until it can be`));
  return storage;
}

/** Counters that heal: once in the background now, then on a schedule (also `npm run reconcile`). */
function scheduleMaintenance(config: Config, logger: Logger, storage: BannerStorage): NodeJS.Timeout | undefined {
  const maintenance = createReconciliationService({
    storage,
    logger,
    orphanMinAgeMs: config.maintenance.orphanMinAgeMs,
  });
  const trash = createTrashService({ storage, logger, retentionMs: config.maintenance.trashRetentionMs });
  const maintain = async () => {
    await maintenance.runMaintenance();
    await trash.purgeExpired();
  };
  if (config.maintenance.onStart) setTimeout(() => void maintain(), 0).unref();
  const maintenanceTimer =
    config.maintenance.intervalMs > 0 ? setInterval(() => void maintain(), config.maintenance.intervalMs) : undefined;
  maintenanceTimer?.unref();
  return maintenanceTimer;
}

interface AppParts {
  config: Config;
  logger: Logger;
  storage: BannerStorage;
  metrics: AppMetrics;
  database: StartedDatabase;
  redis: SharedRedis;
  lifecycle: Lifecycle;
}

/**
 * Every instance runs both: the scheduler publishes each due post with one conditional update (the
 * first pass catches up on what came due while none ran), the worker leases each webhook delivery.
 */
function startBackgroundWork(config: Config, logger: Logger, metrics: AppMetrics) {
  const scheduler = createPublishScheduler({
    events: EVENTS,
    logger,
    lateness: metrics.publishLateness,
    intervalMs: PUBLISH_INTERVAL_MS,
  });
  const deliveries = createDeliveryWorker({
    logger,
    allowPrivate: config.webhooksAllowPrivate,
    deliveries: metrics.webhookDeliveries,
    intervalMs: DELIVERY_INTERVAL_MS,
  });
  scheduler.start();
  deliveries.start();
  return { stop: () => Promise.all([scheduler.stop(), deliveries.stop()]).then(() => undefined) };
}

/** The app on what the steps before opened: Redis's stores when there is Redis, the watchdog's verdict for /healthz. */
function buildApp({ config, logger, storage, metrics, database, redis, lifecycle }: AppParts) {
  const { client } = redis;
  return createApp({
    config,
    logger,
    storage,
    rateLimitStore: client && createRedisRateLimitStore(client),
    loginThrottleStores: client && {
      perAccount: createRedisRateLimitStore(client, 'login-account:'),
      perIp: createRedisRateLimitStore(client, 'login-ip:'),
    },
    mailThrottleStores: client && {
      perAddress: createRedisRateLimitStore(client, 'mail-address:'),
      perAddressOfUser: createRedisRateLimitStore(client, 'mail-resend:'),
      perIp: createRedisRateLimitStore(client, 'mail-ip:'),
    },
    readinessChecks: redis.readinessChecks,
    isShuttingDown: () => lifecycle.shuttingDown,
    isLive: () => database.watchdog.healthy(),
    metrics,
    authChanges: redis.authChanges,
    events: EVENTS,
  });
}

/**
 * Node's defaults would hold a slow body for 300 s; each bound is explicit and configurable. Node
 * enforces the first two on a sweep of the connections, every 30 s unless told: every second here.
 */
function createHttpServer(config: Config, app: ReturnType<typeof createApp>): Server {
  const server = createServer(
    {
      headersTimeout: config.http.headersTimeoutMs,
      requestTimeout: config.http.requestTimeoutMs,
      keepAliveTimeout: config.http.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.http.headersTimeoutMs),
    },
    app,
  );
  // the errors Node answers before the app (a malformed request, oversized headers, a timeout) as JSON too
  server.on('clientError', answerClientError);
  return server;
}

/** What the steps opened and must close again: the database connection, Redis, a local database. */
interface Opened {
  database: StartedDatabase;
  redis: SharedRedis;
}

async function closeOpened({ database, redis }: Opened): Promise<void> {
  await redis.authChanges?.close();
  if (redis.client) await closeRedis(redis.client);
  await disconnectDatabase();
  await database.localDatabase?.stop();
}

async function listenOrRelease(server: Server, port: number, opened: Opened): Promise<void> {
  try {
    await listen(server, port);
  } catch (error) {
    // nothing else is holding the process open: release the database before the one-line report
    opened.database.watchdog.stop();
    await closeOpened(opened);
    throw error;
  }
}

interface Running extends Opened {
  config: Config;
  logger: Logger;
  server: Server;
  maintenanceTimer: NodeJS.Timeout | undefined;
  background: { stop(): Promise<void> };
  lifecycle: Lifecycle;
}

/** SIGTERM and SIGINT shut down gracefully, once; a shutdown that fails exits 1 with one line. */
function shutDownOnSignals(running: Running): void {
  const onSignal = (signal: string) => {
    shutdown(signal, running).catch((error: unknown) => {
      running.logger.error('shutdown failed', { error: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

async function shutdown(signal: string, running: Running): Promise<void> {
  const { config, logger, server, database, maintenanceTimer, lifecycle } = running;
  if (lifecycle.shuttingDown) return;
  lifecycle.shuttingDown = true;
  database.watchdog.stop();
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
  await running.background.stop();
  await closeOpened(running);
  logger.info('shutdown complete');
  process.exit(0);
}

/**
 * Written once the signal handlers are in place: whoever waits for this line may stop the process at once.
 * The port actually bound: PORT=0 asks the system for a free one (tests start servers that way).
 */
function announceListening(server: Server, logger: Logger): void {
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
  exitWith(`Start-up failed: ${message.split('\n')[0].trim()}`);
});
