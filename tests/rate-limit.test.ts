import { useTestApp } from './helpers/test-app';
import { agent } from './helpers/agent';

const ctx = useTestApp();

describe('global rate limit', () => {
  it('counts down RateLimit-Remaining with RateLimit-Limit and RateLimit-Reset on every response', async () => {
    const { app } = ctx.buildApp({ RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_MS: '60000' });
    const first = await agent(app).get('/');
    const second = await agent(app).get('/');

    expect(first.headers['ratelimit-limit']).toBe('5');
    expect(first.headers['ratelimit-remaining']).toBe('4');
    expect(second.headers['ratelimit-remaining']).toBe('3');
    expect(Number(first.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(first.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
    expect(first.headers['retry-after']).toBeUndefined();
  });

  it('answers request max+1 with 429, a body of only {error}, and Retry-After', async () => {
    const { app } = ctx.buildApp({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
    for (let i = 0; i < 3; i++) expect((await agent(app).get('/')).status).toBe(200);
    const limited = await agent(app).get('/');

    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: expect.any(String) });
    expect(Object.keys(limited.body)).toEqual(['error']);
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('counts every route, including auth, user and unknown routes, in one budget', async () => {
    const { app } = ctx.buildApp({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
    await agent(app).post('/auth/login').send({});
    await agent(app).get('/users/current');
    await agent(app).get('/no-such-route');

    expect((await agent(app).post('/auth/register').send({})).status).toBe(429);
    expect((await agent(app).get('/users/current')).status).toBe(429);
  });

  it('opens again after the window', async () => {
    const { app } = ctx.buildApp({ RATE_LIMIT_MAX: '1', RATE_LIMIT_WINDOW_MS: '1000' });
    expect((await agent(app).get('/')).status).toBe(200);
    expect((await agent(app).get('/')).status).toBe(429);
    // polled, not slept: the window ends a second after the first request, whatever the machine's load
    let status = 429;
    for (let poll = 0; poll < 100 && status === 429; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await agent(app).get('/')).status;
    }
    expect(status).toBe(200);
  });
});
