/** The operations variables: REDIS_URL (shared rate limit) and SHUTDOWN_TIMEOUTS (draining on SIGTERM). */
import { ConfigError, loadConfig } from '../src/config';

const base = { NODE_ENV: 'development', JWT_ACCESS_SECRET: 'a'.repeat(32), JWT_REFRESH_SECRET: 'b'.repeat(32) };

describe('operations configuration', () => {
  it('defaults to no Redis and a 10 s shutdown grace period', () => {
    const { config } = loadConfig(base);
    expect(config.redisUrl).toBeUndefined();
    expect(config.shutdownGraceMs).toBe(10_000);
  });

  it.each(['redis://redis:6379', 'rediss://:p4ss@cache.example.com:6380/2'])('accepts REDIS_URL %s', (url) => {
    expect(loadConfig({ ...base, REDIS_URL: url }).config.redisUrl).toBe(url);
  });

  it('treats an empty REDIS_URL as unset, as in .env.example', () => {
    expect(loadConfig({ ...base, REDIS_URL: '' }).config.redisUrl).toBeUndefined();
  });

  it.each(['localhost:6379', 'http://redis:6379', 'redis://'])(
    'stops start-up on REDIS_URL %s, naming the variable',
    (url) => {
      expect(() => loadConfig({ ...base, REDIS_URL: url })).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, REDIS_URL: url })).toThrow('REDIS_URL');
    },
  );

  it('reads SHUTDOWN_TIMEOUTS, each part optional, and refuses a part that is unknown, fractional or over 10 minutes', () => {
    const grace = (value: string) => loadConfig({ ...base, SHUTDOWN_TIMEOUTS: value }).config;
    expect(grace('grace=25s')).toEqual(
      expect.objectContaining({ shutdownGraceMs: 25_000, shutdownReadinessDelayMs: 5_000 }),
    );
    expect(grace('Readiness=0, GRACE=1500')).toEqual(
      expect.objectContaining({ shutdownGraceMs: 1_500, shutdownReadinessDelayMs: 0 }),
    );
    for (const invalid of ['grace=-1', 'grace=1.5', 'grace=ten', 'grace=600001', 'drain=5s', '5s']) {
      expect(() => grace(invalid)).toThrow('SHUTDOWN_TIMEOUTS');
    }
  });
});

describe('failure-behaviour configuration', () => {
  it('bounds every wait by default: 2.5 s server selection, 10 s socket deadline, 15 s storage, 5 s readiness delay', () => {
    const { config } = loadConfig(base);
    expect(config.database).toEqual({
      operationTimeoutMs: 10_000,
      serverSelectionTimeoutMs: 2_500,
      socketTimeoutMs: 10_000,
      connectTimeoutMs: 3_000,
      heartbeatMs: 1_000,
      retryAfterSeconds: 5,
      watchdogIntervalMs: 5_000,
      watchdogUnreachableMs: 20_000,
    });
    expect(config.storage.saveTimeoutMs).toBe(15_000);
    expect(config.shutdownReadinessDelayMs).toBe(5_000);
    expect(config.http).toEqual({ headersTimeoutMs: 20_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000 });
    expect(config.maintenance).toEqual({
      intervalMs: 3_600_000,
      onStart: true,
      orphanMinAgeMs: 3_600_000,
      trashRetentionMs: 30 * 24 * 3_600_000,
    });
  });

  it('reads each setting and refuses values outside its range, naming the variable', () => {
    const { config } = loadConfig({
      ...base,
      STORAGE_SAVE_TIMEOUT_MS: '9000',
      RECONCILE_INTERVAL_MS: '0',
      DB_WATCHDOG_UNREACHABLE_MS: '8000',
    });
    expect(config.storage.saveTimeoutMs).toBe(9_000);
    expect(config.maintenance).toEqual(expect.objectContaining({ intervalMs: 0, onStart: false }));
    expect(config.database).toEqual(
      expect.objectContaining({ watchdogIntervalMs: 2_000, watchdogUnreachableMs: 8_000 }),
    );
    expect(loadConfig({ ...base, DB_WATCHDOG_UNREACHABLE_MS: '0' }).config.database.watchdogIntervalMs).toBe(0);
    for (const [name, value] of [
      ['STORAGE_SAVE_TIMEOUT_MS', '-5'],
      ['SHUTDOWN_TIMEOUTS', 'readiness=1.5'],
      ['HTTP_TIMEOUTS', 'keepAlive=50ms'],
      ['DB_WATCHDOG_UNREACHABLE_MS', '500'],
    ]) {
      expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
    }
  });

  it("reads the driver's deadlines from MONGODB_URI's options, whatever their case, and refuses one out of range", () => {
    const uri =
      'mongodb://db.example:27017/blog?replicaSet=rs0&serverSelectionTimeoutMS=2000&SOCKETTIMEOUTMS=3000&timeoutMS=4000';
    expect(loadConfig({ ...base, MONGODB_URI: uri }).config.database).toEqual(
      expect.objectContaining({
        serverSelectionTimeoutMs: 2_000,
        socketTimeoutMs: 3_000,
        operationTimeoutMs: 4_000,
        connectTimeoutMs: 3_000,
        heartbeatMs: 1_000,
      }),
    );
    for (const option of ['serverSelectionTimeoutMS=0', 'socketTimeoutMS=soon', 'heartbeatFrequencyMS=100']) {
      expect(() => loadConfig({ ...base, MONGODB_URI: `mongodb://a:1,b:2/blog?${option}` })).toThrow(
        `MONGODB_URI: ${option.split('=')[0]}`,
      );
    }
  });

  it('refuses a variable it no longer reads, naming what replaces it', () => {
    expect(() => loadConfig({ ...base, MONGODB_SOCKET_TIMEOUT_MS: '3000' })).toThrow(
      /^MONGODB_SOCKET_TIMEOUT_MS: no longer read; add \?socketTimeoutMS=<ms> to MONGODB_URI$/,
    );
    expect(() => loadConfig({ ...base, RECONCILE_ON_START: 'false' })).toThrow('RECONCILE_INTERVAL_MS=0');
    expect(() => loadConfig({ ...base, CLOUDINARY_API_KEY: 'key' })).toThrow('CLOUDINARY_URL');
    expect(() => loadConfig({ ...base, SHUTDOWN_GRACE_MS: '1000' })).toThrow('SHUTDOWN_TIMEOUTS=grace=');
    expect(() => loadConfig({ ...base, CLOUDINARY_FOLDER: 'blogs' })).toThrow('?folder=');
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() => loadConfig({ ...base, HTTP_TIMEOUTS: 'headers=70s,request=60s' })).toThrow('HTTP_TIMEOUTS');
    expect(loadConfig({ ...base, HTTP_TIMEOUTS: 'headers=5s,keepalive=61s' }).config.http).toEqual({
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 61_000,
    });
  });
});
