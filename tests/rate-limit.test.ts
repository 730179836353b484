import request from 'supertest';
import { createTestContext, type TestContext } from './helpers/test-app';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('global rate limit', () => {
  it('counts down RateLimit-Remaining with RateLimit-Limit and RateLimit-Reset on every response', async () => {
    const { app } = ctx.buildApp({ RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_MS: '60000' });
    const first = await request(app).get('/api/v1/');
    const second = await request(app).get('/api/v1/');

    expect(first.headers['ratelimit-limit']).toBe('5');
    expect(first.headers['ratelimit-remaining']).toBe('4');
    expect(second.headers['ratelimit-remaining']).toBe('3');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
    expect(first.headers['retry-after']).toBeUndefined();
  });

  it('answers request max+1 with 429, a body of only {error}, and Retry-After', async () => {
    const { app } = ctx.buildApp({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
    for (let i = 0; i < 3; i++) expect((await request(app).get('/api/v1/')).status).toBe(200);
    const limited = await request(app).get('/api/v1/');

    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: expect.any(String) });
    expect(Object.keys(limited.body)).toEqual(['error']);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('counts every route, including auth, user and unknown routes, in one budget', async () => {
    const { app } = ctx.buildApp({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
    await request(app).post('/api/v1/auth/login').send({});
    await request(app).get('/api/v1/users/current');
    await request(app).get('/api/v1/no-such-route');

    expect((await request(app).post('/api/v1/auth/register').send({})).status).toBe(429);
    expect((await request(app).get('/api/v1/users/current')).status).toBe(429);
  });

  it('opens again after the window', async () => {
    const { app } = ctx.buildApp({ RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '1000' });
    expect((await request(app).get('/api/v1/')).status).toBe(200);
    expect((await request(app).get('/api/v1/')).status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await request(app).get('/api/v1/')).status).toBe(200);
  });
});
