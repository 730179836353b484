import request from 'supertest';
import { createApp } from '../src/app';
import { captureLog, settle } from './helpers/log-capture';
import { useTestApp } from './helpers/test-app';

const ctx = useTestApp();

describe('GET /healthz', () => {
  it('answers 200 {status: "ok"} without asking any dependency', async () => {
    const { app } = ctx.buildApp({});
    const response = await request(app).get('/healthz');

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('lives at the root, not under /api/v1', async () => {
    expect((await request(ctx.app).get('/api/v1/healthz')).status).toBe(404);
    expect((await request(ctx.app).get('/api/v1/readyz')).status).toBe(404);
  });
});

describe('GET /readyz', () => {
  it('answers 200 ready with mongodb up, and no redis entry when Redis is not configured', async () => {
    const response = await request(ctx.app).get('/readyz');

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready', checks: { mongodb: 'up' } });
  });

  it('reports redis when a Redis check is configured', async () => {
    const app = createApp({ config: ctx.config, logger: ctx.logger, readinessChecks: { redis: async () => true } });
    const response = await request(app).get('/readyz');

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready', checks: { mongodb: 'up', redis: 'up' } });
  });

  it.each([
    ['answers false', async () => false],
    ['throws', async () => Promise.reject(new Error('connection refused'))],
    ['never answers (timeout)', () => new Promise<boolean>(() => {})],
  ])('answers 503 naming the dependency that %s', async (_case, check) => {
    const app = createApp({ config: ctx.config, logger: ctx.logger, readinessChecks: { redis: check } });
    const response = await request(app).get('/readyz');

    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'unavailable', checks: { mongodb: 'up', redis: 'down' } });
  });

  it('answers 503 when MongoDB does not answer its ping', async () => {
    const app = createApp({ config: ctx.config, logger: ctx.logger, readinessChecks: { mongodb: async () => false } });
    const response = await request(app).get('/readyz');

    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'unavailable', checks: { mongodb: 'down' } });
  });

  it('answers 503 once shutdown has begun, so load balancers stop sending traffic, while healthz stays 200', async () => {
    let shuttingDown = false;
    const app = createApp({ config: ctx.config, logger: ctx.logger, isShuttingDown: () => shuttingDown });
    expect((await request(app).get('/readyz')).status).toBe(200);

    shuttingDown = true;
    const response = await request(app).get('/readyz');

    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ status: 'unavailable', reason: 'shutting down' });
    expect((await request(app).get('/healthz')).status).toBe(200);
  });
});

describe('probes and the rate limit', () => {
  it('never rate-limits /healthz or /readyz, even when the API itself answers 429', async () => {
    const { app } = ctx.buildApp({ RATE_LIMIT_MAX: '1' });
    expect((await request(app).get('/api/v1/')).status).toBe(200);
    expect((await request(app).get('/api/v1/')).status).toBe(429);

    for (let i = 0; i < 5; i++) {
      const health = await request(app).get('/healthz');
      const ready = await request(app).get('/readyz');
      expect([health.status, ready.status]).toEqual([200, 200]);
      expect(health.headers['ratelimit-remaining']).toBeUndefined();
    }
  });

  it('writes probe lines at debug, so probes every few seconds do not flood the log at info', async () => {
    const log = captureLog('debug');
    const app = createApp({ config: ctx.config, logger: log.logger });
    await request(app).get('/healthz');
    await request(app).get('/readyz');
    await settle();

    expect(log.entries()).toEqual([
      expect.objectContaining({ level: 'debug', path: '/healthz', status: 200 }),
      expect.objectContaining({ level: 'debug', path: '/readyz', status: 200 }),
    ]);
  });
});
