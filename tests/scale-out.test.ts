/**
 * Two server processes against one MongoDB database and one Redis, as `docker compose up --scale api=2`
 * runs them: the rate limit holds across both, and sessions are the database's, not an instance's.
 */
import path from 'node:path';
import mongoose from 'mongoose';
import { createClient } from 'redis';
import { useTestApp } from './helpers/test-app';
import { redisServerInstalled, startRedisServer, type RedisServer } from './helpers/redis-server';
import {
  databaseUri,
  runToExit,
  sharedSecrets,
  startServerProcess,
  type ServerProcess,
} from './helpers/server-process';

const REDIS_INSTALLED = redisServerInstalled();
if (!REDIS_INSTALLED && process.env.CI) {
  throw new Error('redis-server is not on the PATH: .ci/run installs it with apt-get (package redis-server)');
}
// Skipped rather than failed on a developer machine without Redis, so that `npm test` still runs
// everything else there; CI installs Redis and fails above when it is missing. docs/operations.md,
// says how to install it (apt-get install redis-server).
const describeWithRedis = REDIS_INSTALLED ? describe : describe.skip;

const RATE_LIMIT_MAX = 10;
jest.setTimeout(90_000);

useTestApp();

/** What every instance of this file runs with, but its Redis. */
const instanceEnv = () => ({
  MONGODB_URI: databaseUri(mongoose.connection.name),
  RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
  RATE_LIMIT_WINDOW_MS: '600000',
  ...sharedSecrets(),
});

describeWithRedis('two instances sharing MongoDB and Redis', () => {
  let redis: RedisServer;
  let redisAdmin: ReturnType<typeof createClient>;
  const servers: ServerProcess[] = [];
  let a: ServerProcess;
  let b: ServerProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    redis = await startRedisServer();
    redisAdmin = createClient({ url: redis.url });
    redisAdmin.on('error', () => undefined); // the outage test kills the server under it
    await redisAdmin.connect();
    env = { ...instanceEnv(), REDIS_URL: redis.url };
    [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    servers.push(a, b);
  });
  beforeEach(async () => {
    if (redisAdmin.isReady) await redisAdmin.flushDb(); // a fresh rate-limit budget per test
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await redisAdmin?.close().catch(() => undefined);
    await redis?.stop();
  });

  const get = (server: ServerProcess, path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}${path}`, { headers });
  const post = (
    server: ServerProcess,
    path: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  const refreshCookieOf = (response: Response) => {
    const cookie = response.headers.getSetCookie().find((value) => value.startsWith('refreshToken='));
    if (!cookie) throw new Error(`no refresh cookie (status ${response.status})`);
    return cookie.split(';')[0];
  };

  /** Sends `count` requests alternating A, B, A, ... and returns their statuses and remaining budgets. */
  async function alternate(count: number) {
    const results: Array<{ status: number; remaining: string | null }> = [];
    for (let i = 0; i < count; i++) {
      const response = await get(i % 2 === 0 ? a : b, '/api/v1/');
      await response.arrayBuffer();
      results.push({ status: response.status, remaining: response.headers.get('ratelimit-remaining') });
    }
    return results;
  }

  it('answers 429 once RATE_LIMIT_MAX requests in total reached the two instances, not twice that', async () => {
    const results = await alternate(RATE_LIMIT_MAX + 4);

    expect(results.map((result) => result.status)).toEqual([...Array(RATE_LIMIT_MAX).fill(200), 429, 429, 429, 429]);
    expect(results.slice(0, RATE_LIMIT_MAX).map((result) => result.remaining)).toEqual(
      Array.from({ length: RATE_LIMIT_MAX }, (_, i) => String(RATE_LIMIT_MAX - 1 - i)),
    );
  });

  it('accepts on B the refresh cookie and access token issued by A', async () => {
    const registered = await post(a, '/api/v1/auth/register', {
      body: { email: 'shared@example.com', password: 'password123' },
    });
    const { accessToken } = (await registered.json()) as { accessToken: string };
    const cookie = refreshCookieOf(registered);

    const refreshed = await post(b, '/api/v1/auth/refresh-token', { headers: { cookie } });
    const current = await get(b, '/api/v1/users/current', { authorization: `Bearer ${accessToken}` });

    expect(registered.status).toBe(201);
    expect(refreshed.status).toBe(200);
    expect(await refreshed.json()).toEqual({ accessToken: expect.any(String) });
    expect(current.status).toBe(200);
    expect(((await current.json()) as { user: { email: string } }).user.email).toBe('shared@example.com');
  });

  it('sees on B a logout made on A: the refresh cookie and the access token stop working there', async () => {
    const registered = await post(a, '/api/v1/auth/register', {
      body: { email: 'leaving@example.com', password: 'password123' },
    });
    const { accessToken } = (await registered.json()) as { accessToken: string };
    const cookie = refreshCookieOf(registered);
    expect((await get(b, '/api/v1/users/current', { authorization: `Bearer ${accessToken}` })).status).toBe(200);

    const loggedOut = await post(a, '/api/v1/auth/logout', {
      headers: { cookie, authorization: `Bearer ${accessToken}` },
    });
    const refreshOnB = await post(b, '/api/v1/auth/refresh-token', { headers: { cookie } });
    const currentOnB = await get(b, '/api/v1/users/current', { authorization: `Bearer ${accessToken}` });

    expect(loggedOut.status).toBe(200);
    expect(refreshOnB.status).toBe(401);
    expect(currentOnB.status).toBe(401);
  });

  it('sees on B a session ended on A from the sessions list: its tokens stop working there at once', async () => {
    const signUp = { body: { email: 'lost-phone@example.com', password: 'password123' } };
    const laptop = (await (await post(a, '/api/v1/auth/register', signUp)).json()) as { accessToken: string };
    const phone = await post(b, '/api/v1/auth/login', signUp);
    const phoneToken = `Bearer ${((await phone.json()) as { accessToken: string }).accessToken}`;
    expect((await get(b, '/api/v1/users/current', { authorization: phoneToken })).status).toBe(200);

    const ended = await fetch(`${a.baseUrl}/api/v1/auth/sessions`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${laptop.accessToken}` },
    });
    const currentOnB = await get(b, '/api/v1/users/current', { authorization: phoneToken });
    const refreshOnB = await post(b, '/api/v1/auth/refresh-token', { headers: { cookie: refreshCookieOf(phone) } });

    expect(ended.status).toBe(204);
    expect(currentOnB.status).toBe(401);
    expect(refreshOnB.status).toBe(401);
  });

  it('sees on B at once a role raised by npm run make-admin, which announces it through Redis', async () => {
    const registered = await post(a, '/api/v1/auth/register', {
      body: { email: 'promoted@example.com', password: 'password123' },
    });
    const { accessToken } = (await registered.json()) as { accessToken: string };
    const roleOnB = async () => {
      const response = await get(b, '/api/v1/users/current', { authorization: `Bearer ${accessToken}` });
      return ((await response.json()) as { user: { role: string } }).user.role;
    };
    expect(await roleOnB()).toBe('user');

    const promoted = await runToExit(path.join('cli', 'make-admin.ts'), ['promoted@example.com'], env);

    expect(promoted).toMatchObject({ code: 0, stderr: '' });
    expect(await roleOnB()).toBe('admin');
  });

  it('keeps serving on both instances when Redis dies (fail open), reports it in /readyz, and limits again once Redis is back', async () => {
    expect((await get(a, '/readyz')).status).toBe(200);
    await redis.kill();

    const duringOutage = await alternate(RATE_LIMIT_MAX + 4);
    const readyA = await get(a, '/readyz');

    expect(duringOutage.map((result) => result.status)).toEqual(Array(RATE_LIMIT_MAX + 4).fill(200));
    expect(readyA.status).toBe(503);
    expect(await readyA.json()).toEqual({ status: 'unavailable', checks: { mongodb: 'up', redis: 'down' } });
    await a.waitForLine(/error from store, allowing request without rate-limiting/, 5000);

    // The same port again: a new, empty Redis (no counters, no loaded scripts), as after a restart.
    redis = await startRedisServer(redis.port);
    await Promise.all([waitUntilReady(a), waitUntilReady(b)]);
    const afterOutage = await alternate(RATE_LIMIT_MAX + 1);

    expect(afterOutage.map((result) => result.status)).toEqual([...Array(RATE_LIMIT_MAX).fill(200), 429]);
  });

  it('answers when Redis stops answering with its connections open (frozen), failing open after the store deadline', async () => {
    redis.pause();
    let duringFreeze: Array<{ status: number }>;
    try {
      // held until Redis answered again, these would wait as long as the freeze (the test's timeout)
      duringFreeze = await alternate(4);
      expect((await get(a, '/readyz')).status).toBe(503);
    } finally {
      redis.resume();
    }
    expect(duringFreeze.map((result) => result.status)).toEqual([200, 200, 200, 200]);
    await a.waitForLine(/redis: no answer to \w+ within 1000 ms/, 5000);
    await Promise.all([waitUntilReady(a), waitUntilReady(b)]);
  });

  // Concurrent (started once the top-level beforeAll has run, before this block's): an instance and a Redis
  // of its own, and most of its time is spent waiting for the instance's Redis connection attempts.
  it.concurrent('starts without Redis (failing open), and limits once Redis comes up', async () => {
    // A port Redis itself found free, with nothing on it until Redis comes back there, as after a restart.
    const parked = await startRedisServer();
    const { port } = parked;
    await parked.stop();
    const late = await startServerProcess({ ...instanceEnv(), REDIS_URL: `redis://127.0.0.1:${port}` });
    servers.push(late);
    expect(late.output.join('\n')).toMatch(/redis: not reachable at start/);
    for (let i = 0; i < RATE_LIMIT_MAX + 2; i++) expect((await get(late, '/api/v1/')).status).toBe(200);

    const lateRedis = await startRedisServer(port);
    try {
      await waitUntilReady(late);
      const statuses: number[] = [];
      for (let i = 0; i < RATE_LIMIT_MAX + 1; i++) statuses.push((await get(late, '/api/v1/')).status);

      expect(statuses).toEqual([...Array(RATE_LIMIT_MAX).fill(200), 429]);
    } finally {
      await late.stop();
      await lateRedis.stop();
    }
  });
});

/** Polls /readyz until 200: the instance's Redis client reconnects with a back-off of a few seconds at most. */
async function waitUntilReady(server: ServerProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${server.baseUrl}/readyz`);
    if (response.status === 200) return;
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms: ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
