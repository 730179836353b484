/**
 * Password guessing: failed logins are counted per account (whatever the address) and per client IP
 * (whatever the account); past either bound login answers 429 with Retry-After until the window ends,
 * a success clears its account's count, and an unknown email costs the same password check as a known one.
 */
import bcrypt from 'bcrypt';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { closeRedis, createRedisRateLimitStore, openRedis, type RedisClient } from '../../src/lib/redis';
import { LOGIN_THROTTLE_MESSAGE } from '../../src/schemas/auth';
import { redisServerInstalled, startRedisServer, unreachableRedisUrl } from '../helpers/redis-server';
import { useTestApp } from '../helpers/test-app';
import { agent } from '../helpers/agent';
import { registerUser, uniqueEmail } from '../helpers/users';
import { expectCleanRefusal, expectDatabaseUnchanged } from './helpers';

const ctx = useTestApp();
const victim = ctx.signedInUser();

/** An app with its own (fresh) failure counts; proxies trusted so that each attempt can claim its own address. */
const appWith = (env: Record<string, string> = {}) =>
  ctx.buildApp({
    LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
    LOGIN_MAX_FAILURES_PER_IP: '1000',
    LOGIN_FAILURE_WINDOW: '15m',
    TRUST_PROXY: 'true',
    ...env,
  }).app;

let address = 0;
const nextAddress = () => `203.0.113.${(address++ % 250) + 1}`;
const login = (app: Express, email: string, password: string, from = nextAddress()) =>
  agent(app).post('/auth/login').set('X-Forwarded-For', from).send({ email, password });
const wrongPassword = (app: Express, user = victim, from?: string) =>
  login(app, user.user.email, 'not-the-password', from);

function expectThrottled(response: request.Response, windowSeconds: number) {
  expectCleanRefusal(response, 429);
  expect(response.body).toEqual({ error: LOGIN_THROTTLE_MESSAGE });
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

describe('settings', () => {
  it('defaults to 10 failures per account and 100 per IP in 15 minutes, and refuses values that are not positive', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).config.loginThrottle).toEqual({
      maxFailuresPerAccount: 10,
      maxFailuresPerIp: 100,
      windowMs: 15 * 60_000,
    });
    expect(
      loadConfig({
        NODE_ENV: 'test',
        LOGIN_MAX_FAILURES_PER_ACCOUNT: '5',
        LOGIN_MAX_FAILURES_PER_IP: '50',
        LOGIN_FAILURE_WINDOW: '1h',
      }).config.loginThrottle,
    ).toEqual({ maxFailuresPerAccount: 5, maxFailuresPerIp: 50, windowMs: 3_600_000 });
    for (const [name, value] of [
      ['LOGIN_MAX_FAILURES_PER_ACCOUNT', '0'],
      ['LOGIN_MAX_FAILURES_PER_IP', 'many'],
      ['LOGIN_FAILURE_WINDOW', 'soon'],
    ]) {
      expect(() => loadConfig({ NODE_ENV: 'test', [name]: value })).toThrow(new RegExp(`^${name}: `));
    }
  });
});

describe('per account', () => {
  it('locks an account after LOGIN_MAX_FAILURES_PER_ACCOUNT failures from as many addresses, even for the right password', async () => {
    const app = appWith();
    await expectDatabaseUnchanged(async () => {
      for (let attempt = 0; attempt < 3; attempt++) expect((await wrongPassword(app)).status).toBe(400);
      expectThrottled(await wrongPassword(app), 15 * 60);
      // the right password too: a guesser must not learn that it found it
      expectThrottled(await login(app, victim.user.email, victim.password), 15 * 60);
    });
  });

  it('counts the account whatever the case or spaces of the email', async () => {
    const app = appWith();
    const email = victim.user.email;
    for (const variant of [email.toUpperCase(), ` ${email}`, email])
      expect((await login(app, variant, 'wrong-password')).status).toBe(400);
    expectThrottled(await login(app, email.toUpperCase(), 'wrong-password'), 15 * 60);
  });

  it('leaves other accounts alone, from the same address', async () => {
    const app = appWith();
    const other = await registerUser(ctx.app);
    const from = nextAddress();
    for (let attempt = 0; attempt < 4; attempt++) await wrongPassword(app, victim, from);
    expect((await login(app, other.user.email, other.password, from)).status).toBe(200);
  });

  it('clears the count on a successful login: only consecutive failures lock', async () => {
    const app = appWith();
    for (let round = 0; round < 3; round++) {
      for (let attempt = 0; attempt < 2; attempt++) expect((await wrongPassword(app)).status).toBe(400);
      expect((await login(app, victim.user.email, victim.password)).status).toBe(200);
    }
    expect((await wrongPassword(app)).status).toBe(400);
  });

  it('locks for a while only: once the window has passed, the right password works again', async () => {
    const app = appWith({ LOGIN_FAILURE_WINDOW: '1s' });
    for (let attempt = 0; attempt < 3; attempt++) await wrongPassword(app);
    expectThrottled(await wrongPassword(app), 1);

    let status = 429;
    for (let poll = 0; poll < 100 && status === 429; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await login(app, victim.user.email, victim.password)).status;
    }
    expect(status).toBe(200);
  });
});

describe('a profile update confirming the current password', () => {
  it('counts a wrong current_password as a failed login: a stolen access token cannot guess the password without end', async () => {
    const app = appWith();
    const owner = await registerUser(ctx.app);
    const update = (body: Record<string, string>) =>
      agent(app).put('/users/current').set('Authorization', `Bearer ${owner.accessToken}`).send(body);

    for (let attempt = 0; attempt < 3; attempt++) {
      const guess = await update({ password: 'taken-over-1', current_password: `guess-${attempt}` });
      expect(guess.status).toBe(400);
      expect(Object.keys(guess.body.errors)).toEqual(['current_password']);
    }
    // the right password too, as at login; and login shares the account's bound
    expectThrottled(await update({ password: 'taken-over-1', current_password: owner.password }), 15 * 60);
    expectThrottled(await login(app, owner.user.email, owner.password), 15 * 60);
    // what needs no password goes on; the password is still the owner's
    expect((await update({ first_name: 'Still' })).status).toBe(200);
    expect((await login(ctx.app, owner.user.email, owner.password)).status).toBe(200);
  });

  it('does not count a right current_password', async () => {
    const app = appWith();
    const owner = await registerUser(ctx.app);
    const update = (body: Record<string, string>) =>
      agent(app).put('/users/current').set('Authorization', `Bearer ${owner.accessToken}`).send(body);

    for (let attempt = 0; attempt < 4; attempt++)
      expect((await update({ first_name: `Name${attempt}`, current_password: owner.password })).status).toBe(200);
    expect((await update({ password: 'a-new-password', current_password: owner.password })).status).toBe(200);
  });
});

describe('per IP', () => {
  it('locks an address after LOGIN_MAX_FAILURES_PER_IP failures spread over many accounts, unknown emails included', async () => {
    const app = appWith({ LOGIN_MAX_FAILURES_PER_IP: '4' });
    const from = nextAddress();
    const accounts = await Promise.all([registerUser(ctx.app), registerUser(ctx.app)]);
    await expectDatabaseUnchanged(async () => {
      expect((await wrongPassword(app, accounts[0], from)).status).toBe(400);
      expect((await wrongPassword(app, accounts[1], from)).status).toBe(400);
      expect((await login(app, uniqueEmail('nobody'), 'whatever-password', from)).status).toBe(404);
      expect((await login(app, 'not-an-email', 'whatever-password', from)).status).toBe(400);
      expectThrottled(await login(app, uniqueEmail('nobody'), 'whatever-password', from), 15 * 60);
      expectThrottled(await login(app, accounts[0].user.email, accounts[0].password, from), 15 * 60);
    });
    // another address is not affected
    expect((await login(app, accounts[0].user.email, accounts[0].password)).status).toBe(200);
  });

  it("does not count successful logins, nor clear the address's count with one", async () => {
    const app = appWith({ LOGIN_MAX_FAILURES_PER_IP: '3' });
    const from = nextAddress();
    const own = await registerUser(ctx.app);
    for (let attempt = 0; attempt < 5; attempt++)
      expect((await login(app, own.user.email, own.password, from)).status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++) {
      expect((await login(app, uniqueEmail('nobody'), 'whatever-password', from)).status).toBe(404);
      expect((await login(app, own.user.email, own.password, from)).status).toBe(200);
    }
    expect((await login(app, uniqueEmail('nobody'), 'whatever-password', from)).status).toBe(404);
    expectThrottled(await login(app, uniqueEmail('nobody'), 'whatever-password', from), 15 * 60);
  });
});

describe('an unknown email', () => {
  afterEach(() => jest.restoreAllMocks());

  it("answers the spec's 404 after a password check as costly as a wrong password's", async () => {
    const compare = jest.spyOn(bcrypt, 'compare');
    const app = appWith();

    const unknown = await login(app, uniqueEmail('nobody'), 'some-password');
    expectCleanRefusal(unknown, 404);
    expect(unknown.body.code).toBe('NotFound');
    expect(compare).toHaveBeenCalledTimes(1);
    const [, hash] = compare.mock.calls[0] as unknown as [string, string];
    // a real bcrypt hash at the configured cost, like the stored ones
    expect(hash).toMatch(new RegExp(`^\\$2[aby]\\$0?${ctx.config.bcryptCost}\\$`));

    expect((await wrongPassword(app)).status).toBe(400);
    expect(compare).toHaveBeenCalledTimes(2);
  });
});

describe('with the shared Redis store', () => {
  /** What server.ts gives each instance: its own store objects over the shared keys. */
  const storesOf = (client: RedisClient, prefix: string) => ({
    perAccount: createRedisRateLimitStore(client, `${prefix}login-account:`),
    perIp: createRedisRateLimitStore(client, `${prefix}login-ip:`),
  });
  const instance = (client: RedisClient, prefix: string) =>
    createApp({
      config: ctx.buildApp({ LOGIN_MAX_FAILURES_PER_ACCOUNT: '3', TRUST_PROXY: 'true' }).config,
      logger: ctx.logger,
      loginThrottleStores: storesOf(client, prefix),
    });

  it('fails open when Redis is unreachable: logins go on being answered, never 429 or 500', async () => {
    const client = await openRedis({
      url: await unreachableRedisUrl(),
      logger: ctx.logger,
      readyTimeoutMs: 200,
    });
    try {
      const app = instance(client, 'down:');
      for (let attempt = 0; attempt < 5; attempt++) expect((await wrongPassword(app)).status).toBe(400);
      expect((await login(app, victim.user.email, victim.password)).status).toBe(200);
    } finally {
      await closeRedis(client);
    }
  });

  (redisServerInstalled() ? it : it.skip)(
    'shares the counts between instances, and a success on one clears them for all',
    async () => {
      const redis = await startRedisServer();
      const client = await openRedis({ url: redis.url, logger: ctx.logger });
      try {
        const first = instance(client, 'shared:');
        const second = instance(client, 'shared:');
        expect((await wrongPassword(first)).status).toBe(400);
        expect((await wrongPassword(second)).status).toBe(400);
        expect((await wrongPassword(first)).status).toBe(400);
        expectThrottled(await wrongPassword(second), 15 * 60);
        expectThrottled(await login(first, victim.user.email, victim.password), 15 * 60);

        // a success on one instance clears the account's count on every instance
        const other = await registerUser(ctx.app);
        for (let attempt = 0; attempt < 2; attempt++) expect((await wrongPassword(first, other)).status).toBe(400);
        expect((await login(second, other.user.email, other.password)).status).toBe(200);
        for (let attempt = 0; attempt < 3; attempt++) expect((await wrongPassword(first, other)).status).toBe(400);
        expectThrottled(await wrongPassword(second, other), 15 * 60);
      } finally {
        await closeRedis(client);
        await redis.stop();
      }
    },
  );
});
