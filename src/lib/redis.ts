/**
 * Redis holds the rate-limit counters that several instances share (REDIS_URL), and carries their
 * announcements of auth changes (lib/auth-changes.ts). Nothing else lives there, so a Redis outage must
 * never stop the API: commands fail fast instead of queueing while the client reconnects, the rate
 * limiter lets requests through when its store fails (fail open), and the cache of session checks falls
 * back on its time bound. Opened by server.ts (or a test), never as a side effect of an import.
 */
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { LocalAuthChanges, type AuthChanges, type AuthChangeListener } from './auth-changes';
import type { Logger } from './logger';
import { settleWithin } from './timeout';

export type RedisClient = Awaited<ReturnType<typeof createRedisClient>>;

/** A rate-limit check waits at most this long for Redis before the request goes through unlimited. */
const COMMAND_TIMEOUT_MS = 1000;
const CONNECT_TIMEOUT_MS = 2000;
/** Reconnect back-off: quick at first, then every few seconds for as long as Redis stays away. */
const reconnectDelayMs = (retries: number) => Math.min(100 * 2 ** retries, 5000);
const TIMED_OUT = Symbol('timed out');

/**
 * A command, given up after COMMAND_TIMEOUT_MS. node-redis's own `timeout` bounds only the wait to be
 * written: a Redis that stops answering on an open connection (frozen, or a silent partition) left the
 * reply, and every rate-limited request with it, waiting for as long as it did.
 */
async function command<T>(client: RedisClient, args: string[]): Promise<T> {
  const reply = await settleWithin(
    client.sendCommand<T>(args, { timeout: COMMAND_TIMEOUT_MS }),
    COMMAND_TIMEOUT_MS,
    TIMED_OUT,
  );
  if (reply === TIMED_OUT) throw new Error(`redis: no answer to ${args[0]} within ${COMMAND_TIMEOUT_MS} ms`);
  return reply;
}

export interface OpenRedisOptions {
  url: string;
  logger: Logger;
  /** How long start-up waits for a first connection before going on without one (the client keeps trying). */
  readyTimeoutMs?: number;
}

async function createRedisClient(url: string) {
  // Loaded here, not at the top: only an instance with REDIS_URL needs the client library, and loading
  // it is a sixth of the process's start-up.
  const { createClient } = await import('redis');
  return createClient({
    url,
    // Without this, commands wait in a queue while the client reconnects, and so would every request.
    disableOfflineQueue: true,
    socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: reconnectDelayMs },
  });
}

/**
 * Creates a client and waits a bounded time for it to connect. When Redis is not there yet the
 * instance starts anyway: rate limiting fails open and /readyz reports `redis: "down"` until it is.
 */
export async function openRedis({ url, logger, readyTimeoutMs = 5000 }: OpenRedisOptions): Promise<RedisClient> {
  const client = await createRedisClient(url);

  // node-redis emits an error for every failed reconnect attempt; one line per outage is enough.
  let connected = false;
  client.on('ready', () => {
    if (!connected) logger.info('redis: connected');
    connected = true;
  });
  client.on('error', (error: Error) => {
    if (connected)
      logger.warn('redis: connection lost; rate limiting fails open until it is back', { error: error.message });
    connected = false;
  });

  const firstConnection = client.connect().then(
    () => true,
    () => false, // rejected only when the client is closed while still trying
  );
  const ready = await settleWithin(firstConnection, readyTimeoutMs, false);
  if (!ready) logger.warn('redis: not reachable at start; rate limiting fails open and the client keeps trying');
  return client;
}

/** Answers whether Redis responds to PING (readiness). */
export async function pingRedis(client: RedisClient): Promise<boolean> {
  if (!client.isReady) return false;
  try {
    return (await command<string>(client, ['PING'])) === 'PONG';
  } catch {
    return false;
  }
}

/** Closes the client; one still trying to reconnect has nothing to flush and is simply stopped. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (client.isReady) await client.close();
  else client.destroy();
}

/**
 * rate-limit-redis loads its Lua script once, when the limiter is created. If Redis is down at
 * that moment the stored promise stays rejected and every later count would fail even after Redis
 * is back; this store loads the script again on the next request instead. Nor does that failed load
 * log an error of its own for each limiter (six at start-up): start-up has said Redis is down, and
 * each count that fails says so with its request.
 */
class RecoveringRedisStore extends RedisStore {
  override async init(options: Parameters<RedisStore['init']>[0]) {
    await super.init(options).catch(() => undefined);
  }

  override async increment(key: string) {
    this.incrementScriptSha = this.incrementScriptSha.catch(() => this.loadIncrementScript());
    return super.increment(key);
  }
}

/** The express-rate-limit store over Redis: one counter per client IP, shared by every instance. */
export function createRedisRateLimitStore(client: RedisClient, prefix = 'rl:'): RedisStore {
  return new RecoveringRedisStore({
    prefix,
    sendCommand: (...args: string[]) => command<RedisReply>(client, args),
  });
}

/** The channel on which instances announce auth changes to each other: the user's id is the message. */
const AUTH_CHANGES_CHANNEL = 'auth-changes';

/** Publishes an auth change for the other instances; false when Redis did not take it in time. */
async function publishAuthChange(client: RedisClient, userId: string): Promise<boolean> {
  try {
    await command(client, ['PUBLISH', AUTH_CHANGES_CHANNEL, userId]);
    return true;
  } catch {
    return false;
  }
}

/** For a process that only announces (npm run make-admin): connects, publishes once, closes. */
export async function announceAuthChangeOnce(url: string, userId: string): Promise<boolean> {
  const client = await createRedisClient(url);
  client.on('error', () => undefined); // the caller reports the outcome
  try {
    const connecting = client.connect().then(
      () => true,
      () => false,
    );
    return (await settleWithin(connecting, CONNECT_TIMEOUT_MS, false)) && (await publishAuthChange(client, userId));
  } finally {
    await closeRedis(client);
  }
}

/**
 * Auth changes shared through Redis: announced on the shared client, heard from every instance on a
 * connection of their own (a subscribed connection can send nothing else). This process's listeners
 * hear its own announcements at once, Redis or not. When Redis is away, the other instances rely on
 * their cache's time bound; after a break in the subscription everything kept is dropped, as
 * announcements may have been missed meanwhile.
 */
export class RedisAuthChanges implements AuthChanges {
  private readonly local = new LocalAuthChanges();

  private constructor(
    private readonly client: RedisClient,
    private readonly subscriber: RedisClient,
    private readonly logger: Logger,
  ) {}

  /** Subscribes, waiting for it at most `readyTimeoutMs`; the subscriber keeps trying after that. */
  static async open(client: RedisClient, logger: Logger, readyTimeoutMs = 5000): Promise<RedisAuthChanges> {
    const subscriber = client.duplicate();
    const changes = new RedisAuthChanges(client, subscriber, logger);
    // The shared client reports outages; this one would only repeat them.
    subscriber.on('error', () => undefined);
    let subscribed = false;
    subscriber.on('ready', () => {
      if (subscribed) changes.local.missedSome();
    });
    const subscribing = subscriber
      .connect()
      .then(() => subscriber.subscribe(AUTH_CHANGES_CHANNEL, (userId) => changes.local.heard(userId)))
      .then(
        () => {
          subscribed = true;
          changes.local.missedSome(); // whatever was kept before the first subscription may be stale
        },
        (error: Error) => logger.warn('redis: not subscribed to auth changes', { error: error.message }),
      );
    await settleWithin(subscribing, readyTimeoutMs, undefined);
    return changes;
  }

  listen(listener: AuthChangeListener): void {
    this.local.listen(listener);
  }

  async announce(userId: string): Promise<void> {
    this.local.heard(userId);
    if (!(await publishAuthChange(this.client, userId)))
      this.logger.warn('redis: an auth change was not published; other instances see it within AUTH_CACHE_TTL_MS');
  }

  async close(): Promise<void> {
    await closeRedis(this.subscriber);
  }
}
