/**
 * The Mongoose connection: opened by server.ts (or a test), never as a side effect of an import.
 *
 * Every wait on the database is bounded (docs/failure-behaviour.md): no command buffering (an operation
 * while the database is unreachable fails instead of queueing), server selection in a few seconds, and a
 * socket timeout on every operation, so an outage answers 503 quickly instead of hanging.
 */
import mongoose from 'mongoose';
import { settleWithin } from './timeout';

/** Bounds on the waits for MongoDB; the defaults are those of the configuration. */
export interface DatabaseTimeouts {
  /** The driver's client-side deadline of a whole operation (timeoutMS): selection, checkout, write, read. */
  operationTimeoutMs: number;
  serverSelectionTimeoutMs: number;
  socketTimeoutMs: number;
  connectTimeoutMs: number;
  heartbeatMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  operationTimeoutMs: 10_000,
  serverSelectionTimeoutMs: 2_500,
  socketTimeoutMs: 10_000,
  connectTimeoutMs: 3_000,
  heartbeatMs: 1_000,
};

export interface ConnectOptions {
  uri: string;
  /** Database name; overrides the one in the URI (tests use one database per file). */
  dbName?: string;
  /**
   * The Stable API option. Off by default: the offline stand-in lacks the `hello` command it triggers.
   * Turn it on for Atlas with MONGODB_SERVER_API=true.
   */
  serverApi?: boolean;
  timeouts?: Partial<DatabaseTimeouts>;
  /**
   * The driver's command events, for mongodb_command_duration_seconds (lib/mongodb-metrics.ts). Off by
   * default: with them on the driver decodes every reply a second time for its event, a fifth of a slug
   * read's CPU (1.69 → 1.34 ms, docs/performance.md). The pool's events, and their metrics, need no switch.
   */
  monitorCommands?: boolean;
}

/**
 * The deadline of a read made while serving a request (models/read-deadline.ts): under the 5 s in which
 * every request answers, even in a silent partition, and never above the operation deadline.
 */
export const REQUEST_READ_TIMEOUT_MS = 4_000;

export function requestReadTimeoutMs(): number {
  const configured = lastConnectOptions?.timeouts?.operationTimeoutMs ?? DEFAULT_DATABASE_TIMEOUTS.operationTimeoutMs;
  return Math.min(REQUEST_READ_TIMEOUT_MS, configured);
}

/** What the last connectDatabase was given: the watchdog reopens the connection with it. */
let lastConnectOptions: ConnectOptions | undefined;

function driverOptions(options: ConnectOptions): mongoose.ConnectOptions {
  const timeouts = { ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts };
  return {
    dbName: options.dbName,
    // An operation while the database is unreachable fails at once rather than waiting in Mongoose's queue.
    bufferCommands: false,
    serverSelectionTimeoutMS: timeouts.serverSelectionTimeoutMs,
    // The client-side deadline of every operation, whatever it waits on. Without it an operation whose
    // socket Node destroyed at the wrong moment waits for ever for a 'drain' event that never comes
    // (docs/failure-behaviour.md, "The driver's dead-socket wait"): socketTimeoutMS cannot end it, as the socket is already gone.
    timeoutMS: timeouts.operationTimeoutMs,
    // The deadline of a read on an open connection: a silent partition ends in a network timeout.
    socketTimeoutMS: timeouts.socketTimeoutMs,
    connectTimeoutMS: timeouts.connectTimeoutMs,
    heartbeatFrequencyMS: timeouts.heartbeatMs,
    monitorCommands: options.monitorCommands ?? false,
    ...(options.serverApi ? { serverApi: { version: '1' as const, strict: false, deprecationErrors: true } } : {}),
  };
}

export async function connectDatabase(options: ConnectOptions): Promise<typeof mongoose> {
  // Mongoose keeps each query's call stack (new Error().stack, on every query) only to name where a query
  // ran first when it is run twice by mistake; that costs every request, for a message no code here needs.
  mongoose.set('skipOriginalStackTraces', true);
  // Models are defined at import time; without this their operations would queue while disconnected.
  mongoose.set('bufferCommands', false);
  lastConnectOptions = options;
  const connection = await mongoose.connect(options.uri, driverOptions(options));
  // Unique indexes carry rules of the API (one like per user and blog, unique emails), so they must
  // exist before the first request rather than whenever autoIndex gets round to them.
  await Promise.all(Object.values(connection.models).map((model) => model.init()));
  return connection;
}

export async function disconnectDatabase(): Promise<void> {
  await mongoose.disconnect();
}

/**
 * Answers whether MongoDB responds to a ping now (readiness). It asks the driver rather than reading
 * Mongoose's readyState, which lags: running an operation makes the driver look at the server again.
 */
export async function pingDatabase(deadlineMs = 2_000): Promise<boolean> {
  const db = mongoose.connection.db;
  if (!db) return false;
  try {
    const answer = db
      .admin()
      .command({ ping: 1 })
      .then(
        () => true,
        () => false,
      );
    return await settleWithin(answer, deadlineMs, false);
  } catch {
    return false;
  }
}

/**
 * Whether a fresh client, not the application's, can reach the database now: tells a wedged connection
 * (the database answers, ours does not) from an outage (nobody can reach it).
 */
export async function freshConnectionSucceeds(deadlineMs: number): Promise<boolean> {
  if (!lastConnectOptions) return false;
  // the driver Mongoose itself uses, not another copy that may be installed beside it
  const client = new mongoose.mongo.MongoClient(lastConnectOptions.uri, {
    serverSelectionTimeoutMS: deadlineMs,
    connectTimeoutMS: deadlineMs,
    socketTimeoutMS: deadlineMs,
    maxPoolSize: 1,
  });
  try {
    const attempt = client.connect().then(async (connected) => {
      await connected.db('admin').command({ ping: 1 });
      return true;
    });
    return await settleWithin(
      attempt.catch(() => false),
      deadlineMs + 1_000,
      false,
    );
  } finally {
    void settleWithin(
      client.close(true).catch(() => undefined),
      5_000,
      undefined,
    );
  }
}

/**
 * Throws the application's connection away (without waiting for a stuck driver to finish closing)
 * and opens a new one with the options of the last connectDatabase. Models keep working: they belong
 * to the same Mongoose connection object, which binds their collections again on open.
 */
export async function reopenDatabase(): Promise<void> {
  if (!lastConnectOptions) throw new Error('reopenDatabase before connectDatabase');
  const connection = mongoose.connection;
  const oldClient = connection.getClient();
  // close(true) marks the connection force-closed; wait a bounded time for it, then open anew either way
  await settleWithin(
    connection.close(true).catch(() => undefined),
    5_000,
    undefined,
  );
  if (connection.readyState !== mongoose.ConnectionStates.disconnected) {
    // the old client hangs in close(): leave it to finish (or not) on its own
    void oldClient?.close(true).catch(() => undefined);
    (connection as unknown as { readyState: number }).readyState = mongoose.ConnectionStates.disconnected;
  }
  (connection as unknown as { $wasForceClosed?: boolean }).$wasForceClosed = false;
  await connection.openUri(lastConnectOptions.uri, driverOptions(lastConnectOptions));
}

const SOCKET_ERROR_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ECONNABORTED',
  'ERR_STREAM_DESTROYED',
]);

/**
 * Node's own socket error, passed on unwrapped by the driver (mongodb 6.20 rethrows a failed socket
 * write as it is: `Error: write ECONNRESET` from Connection.writeCommand). Recognised by its code and by
 * coming from the driver, so the same error from another dependency is not taken for the database's.
 */
function isRawDriverSocketError(error: object): boolean {
  const { code, stack } = error as { code?: unknown; stack?: unknown };
  return (
    typeof code === 'string' &&
    SOCKET_ERROR_CODES.has(code) &&
    typeof stack === 'string' &&
    /[\\/]node_modules[\\/](?:mongoose[\\/]node_modules[\\/])?mongodb[\\/]/.test(stack)
  );
}

const UNAVAILABLE_ERROR_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoTopologyClosedError',
  // an operation in flight when the watchdog throws a wedged connection away
  'MongoClientClosedError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'MongoWaitQueueTimeoutError',
  'MongoOperationTimeoutError',
]);

/**
 * Whether an error means the database could not be reached or did not answer in time (as opposed to
 * a bug or a rule of the database): the client may retry later, so it is a 503, not a 500.
 */
export function isDatabaseUnavailableError(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { name, message } = current as { name?: unknown; message?: unknown };
    // another dependency's failure (banner storage) is its own answer, whatever its cause
    if (name === 'StorageError') return false;
    if (typeof name === 'string' && UNAVAILABLE_ERROR_NAMES.has(name)) return true;
    if (isRawDriverSocketError(current)) return true;
    if (
      name === 'MongooseError' &&
      typeof message === 'string' &&
      /before initial connection is complete|Connection was force closed|Client must be connected/.test(message)
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
