/**
 * The Mongoose connection: opened by server.ts (or a test), never as a side effect of an import.
 */
import mongoose from 'mongoose';

export interface ConnectOptions {
  uri: string;
  /** Database name; overrides the one in the URI (tests use one database per file). */
  dbName?: string;
  /**
   * The Stable API option. Off by default: the offline stand-in lacks the `hello` command it triggers.
   * Turn it on for Atlas with MONGODB_SERVER_API=true.
   */
  serverApi?: boolean;
}

export async function connectDatabase(options: ConnectOptions): Promise<typeof mongoose> {
  // Mongoose keeps each query's call stack (new Error().stack, on every query) only to name where a query
  // ran first when it is run twice by mistake; that costs every request, for a message no code here needs.
  mongoose.set('skipOriginalStackTraces', true);
  const connection = await mongoose.connect(options.uri, {
    dbName: options.dbName,
    serverSelectionTimeoutMS: 10_000,
    ...(options.serverApi ? { serverApi: { version: '1' as const, strict: false, deprecationErrors: true } } : {}),
  });
  // Unique indexes carry rules of the API (one like per user and blog, unique emails), so they must
  // exist before the first request rather than whenever autoIndex gets round to them.
  await Promise.all(Object.values(connection.models).map((model) => model.init()));
  return connection;
}

export async function disconnectDatabase(): Promise<void> {
  await mongoose.disconnect();
}

/** Answers whether MongoDB responds to a ping (readiness). */
export async function pingDatabase(): Promise<boolean> {
  const db = mongoose.connection.db;
  if (mongoose.connection.readyState !== 1 || !db) return false;
  try {
    await db.admin().command({ ping: 1 });
    return true;
  } catch {
    return false;
  }
}
