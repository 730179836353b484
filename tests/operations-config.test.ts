/** The operations variables: REDIS_URL (shared rate limit) and SHUTDOWN_GRACE_MS (draining on SIGTERM). */
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

  it.each(['localhost:6379', 'http://redis:6379', 'redis://'])('stops start-up on REDIS_URL %s, naming the variable', (url) => {
    expect(() => loadConfig({ ...base, REDIS_URL: url })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, REDIS_URL: url })).toThrow('REDIS_URL');
  });

  it('reads SHUTDOWN_GRACE_MS and refuses values that are not a whole number of ms up to 10 minutes', () => {
    expect(loadConfig({ ...base, SHUTDOWN_GRACE_MS: '25000' }).config.shutdownGraceMs).toBe(25_000);
    expect(loadConfig({ ...base, SHUTDOWN_GRACE_MS: '0' }).config.shutdownGraceMs).toBe(0);
    for (const invalid of ['-1', '1.5', 'ten', '600001']) {
      expect(() => loadConfig({ ...base, SHUTDOWN_GRACE_MS: invalid })).toThrow('SHUTDOWN_GRACE_MS');
    }
  });
});
