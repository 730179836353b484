/**
 * The shared (Redis) rate-limit store failing at run time: the API keeps answering as if there were
 * no limit (fail open) and says so in the log, rather than answering 500; and auth changes that cannot
 * be announced to other instances still act on this one. No Redis server is needed: the client points at
 * a port nothing listens on, as when Redis is down.
 */
import request from 'supertest';
import { createApp } from '../src/app';
import {
  closeRedis,
  createRedisRateLimitStore,
  openRedis,
  pingRedis,
  RedisAuthChanges,
  type RedisClient,
} from '../src/lib/redis';
import { unreachableRedisUrl } from './helpers/redis-server';
import { captureLog, settle } from './helpers/log-capture';
import { useTestApp } from './helpers/test-app';
import { agent } from './helpers/agent';

let redis: RedisClient;
// Declared before useTestApp: the client closes before the app's database goes (afterAll hooks run in order).
afterAll(() => closeRedis(redis));
const ctx = useTestApp({ env: { RATE_LIMIT_MAX: '2' } });
beforeAll(async () => {
  redis = await openRedis({ url: await unreachableRedisUrl(), logger: ctx.logger, readyTimeoutMs: 200 });
});

describe('rate limit with an unreachable Redis store', () => {
  it('keeps answering 200 past the limit instead of 500 or 429, and logs the store error with the request id', async () => {
    const log = captureLog('warn');
    const app = createApp({ config: ctx.config, logger: log.logger, rateLimitStore: createRedisRateLimitStore(redis) });

    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await agent(app).get('/').set('X-Request-Id', `store-down-${i}`);
      statuses.push(response.status);
    }
    await settle();

    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    // one line a failed count, not one more for each limiter's failed start
    expect(log.entries().filter((entry) => String(entry.message).includes('store initialization'))).toEqual([]);
    const storeErrors = log.entries().filter((entry) => String(entry.message).includes('error from store'));
    expect(storeErrors).toHaveLength(5);
    expect(storeErrors.map((entry) => entry.requestId)).toEqual([0, 1, 2, 3, 4].map((i) => `store-down-${i}`));
    expect(storeErrors[0].level).toBe('error');
  });

  it('still serves the routes behind the limiter (register, then the current user)', async () => {
    const app = createApp({ config: ctx.config, logger: ctx.logger, rateLimitStore: createRedisRateLimitStore(redis) });
    const registered = await agent(app)
      .post('/auth/register')
      .send({ email: 'store-down@example.com', password: 'password123' });
    const current = await agent(app)
      .get('/users/current')
      .set('Authorization', `Bearer ${registered.body.accessToken}`);

    expect(registered.status).toBe(201);
    expect(current.status).toBe(200);
  });

  it('reports redis down in /readyz', async () => {
    const app = createApp({
      config: ctx.config,
      logger: ctx.logger,
      readinessChecks: { redis: () => pingRedis(redis) },
    });
    const response = await request(app).get('/readyz');

    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'unavailable', checks: { mongodb: 'up', redis: 'down' } });
  });
});

describe('auth changes with Redis unreachable', () => {
  it('a logout still answers 200 and ends reads on this instance at once; the log says the others wait for their bound', async () => {
    const log = captureLog('warn');
    const authChanges = await RedisAuthChanges.open(redis, log.logger, 200);
    try {
      const rateLimitStore = createRedisRateLimitStore(redis);
      const api = agent(createApp({ config: ctx.config, logger: log.logger, rateLimitStore, authChanges }));
      const registered = await api
        .post('/auth/register')
        .send({ email: 'announce@example.com', password: 'password123' });
      const bearer = `Bearer ${registered.body.accessToken}`;
      expect((await api.get('/users/current').set('Authorization', bearer)).status).toBe(200);

      const loggedOut = await api
        .post('/auth/logout')
        .set('Authorization', bearer)
        .set('Cookie', String(registered.headers['set-cookie']).split(';')[0]);
      const afterwards = await api.get('/users/current').set('Authorization', bearer);

      expect(loggedOut.status).toBe(200);
      expect(afterwards.status).toBe(401);
      expect(log.entries().map((entry) => entry.message)).toContain(
        'redis: an auth change was not published; other instances see it within AUTH_CACHE_TTL_MS',
      );
    } finally {
      await authChanges.close();
    }
  });
});
