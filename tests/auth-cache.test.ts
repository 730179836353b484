/**
 * AUTH_CACHE_TTL_MS (off by default): reads may rely on a session check this instance made before, for at
 * most that long; writes always ask the database, and a user's own write here drops what was kept for them.
 * Two apps on one database stand for two instances: `ctx.app` without the cache, `cached` with it.
 */
import type { Express } from 'express';
import { UserModel } from '../src/models/user.model';
import { SessionCache } from '../src/lib/session-cache';
import { createTestContext, type TestContext } from './helpers/test-app';
import { agent } from './helpers/agent';
import { registerUser, type SignedInUser } from './helpers/users';

let ctx: TestContext;
let cached: Express;
const elsewhere = agent(() => ctx.app);
const here = agent(() => cached);
beforeAll(async () => {
  ctx = await createTestContext();
  cached = ctx.buildApp({ AUTH_CACHE_TTL_MS: '60000' }).app;
});
afterAll(() => ctx.close());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const logout = (api: typeof here, user: SignedInUser) =>
  api.as(user).post('/auth/logout').set('Cookie', user.refreshCookie);

describe('a session ended on another instance', () => {
  it('still reads here within the time set, but cannot write, and reads nowhere else', async () => {
    const user = await registerUser(ctx.app);
    expect((await here.as(user).get('/users/current')).status).toBe(200);

    expect((await logout(elsewhere, user)).status).toBe(200);

    expect((await here.as(user).get('/users/current')).status).toBe(200);
    expect((await here.as(user).put('/users/current').send({ first_name: 'Late' })).status).toBe(401);
    expect((await elsewhere.as(user).get('/users/current')).status).toBe(401);
  });

  it('reads no more once the time set has passed', async () => {
    const shortLived = agent(ctx.buildApp({ AUTH_CACHE_TTL_MS: '200' }).app);
    const user = await registerUser(ctx.app);
    expect((await shortLived.as(user).get('/users/current')).status).toBe(200);
    expect((await logout(elsewhere, user)).status).toBe(200);

    await pause(250);

    expect((await shortLived.as(user).get('/users/current')).status).toBe(401);
  });
});

describe('a role changed elsewhere (npm run make-admin)', () => {
  it('shows on reads here once the time set has passed, and at once on an instance without the cache', async () => {
    const shortLived = agent(ctx.buildApp({ AUTH_CACHE_TTL_MS: '200' }).app);
    const user = await registerUser(ctx.app);
    expect((await shortLived.as(user).get('/users')).status).toBe(403);

    await UserModel.updateOne({ _id: user.user._id }, { role: 'admin' });

    expect((await elsewhere.as(user).get('/users')).status).toBe(200);
    await pause(250);
    expect((await shortLived.as(user).get('/users')).status).toBe(200);
    expect((await shortLived.as(user).get('/users/current')).body.user.role).toBe('admin');
  });
});

describe("a user's own write on this instance", () => {
  it('logging out here ends reads here at once', async () => {
    const user = await registerUser(ctx.app);
    expect((await here.as(user).get('/users/current')).status).toBe(200);

    expect((await logout(here, user)).status).toBe(200);

    expect((await here.as(user).get('/users/current')).status).toBe(401);
  });

  it('a profile change here shows on the next read here', async () => {
    const user = await registerUser(ctx.app);
    expect((await here.as(user).get('/users/current')).body.user).not.toHaveProperty('firstName');

    expect((await here.as(user).put('/users/current').send({ first_name: 'Ada' })).status).toBe(200);

    expect((await here.as(user).get('/users/current')).body.user.firstName).toBe('Ada');
  });
});

describe('without AUTH_CACHE_TTL_MS (the default)', () => {
  it('every read asks the database: a session ended on another instance reads no more at once', async () => {
    expect(ctx.config.authCacheTtlMs).toBe(0);
    const other = agent(ctx.buildApp({}).app);
    const user = await registerUser(ctx.app);
    expect((await elsewhere.as(user).get('/users/current')).status).toBe(200);

    expect((await logout(other, user)).status).toBe(200);

    expect((await elsewhere.as(user).get('/users/current')).status).toBe(401);
  });
});

describe('SessionCache', () => {
  const clock = { now: 1_000 };
  const cache = () => new SessionCache<string>(100, 3, () => clock.now);

  it('answers a kept check until its time is up, for the same user only', () => {
    const sessions = cache();
    sessions.keep(sessions.mark(), 's1', 'u1', 'checked');
    expect(sessions.get('s1', 'u2')).toBeUndefined();
    sessions.keep(sessions.mark(), 's1', 'u1', 'checked');
    clock.now += 99;
    expect(sessions.get('s1', 'u1')).toBe('checked');
    clock.now += 1;
    expect(sessions.get('s1', 'u1')).toBeUndefined();
  });

  it('keeps at most its size, dropping the oldest', () => {
    const sessions = cache();
    for (const id of ['s1', 's2', 's3', 's4']) sessions.keep(sessions.mark(), id, 'u1', id);
    expect(['s1', 's2', 's3', 's4'].map((id) => sessions.get(id, 'u1'))).toEqual([undefined, 's2', 's3', 's4']);
  });

  it("forgets a user's entries on their write, and keeps no check that ran while a write ended", () => {
    const sessions = cache();
    sessions.keep(sessions.mark(), 's1', 'u1', 'one');
    sessions.keep(sessions.mark(), 's2', 'u2', 'two');
    const during = sessions.mark();
    sessions.forgetUser('u1');
    sessions.keep(during, 's3', 'u3', 'three');
    expect([sessions.get('s1', 'u1'), sessions.get('s2', 'u2'), sessions.get('s3', 'u3')]).toEqual([
      undefined,
      'two',
      undefined,
    ]);
  });
});
