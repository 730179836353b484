/**
 * AUTH_CACHE_TTL_MS (5 s by default): reads may rely on a session check this instance made before, for at
 * most that long; writes always ask the database, and so does a refusal for want of a right. A change
 * announced on an instance (a logout, a profile or password change, a deletion) drops what it kept for
 * the user at once; the authors that blogs show are kept the same way. Two apps on one database stand
 * for two instances without Redis, which hear only their own announcements (with Redis every instance
 * hears them: tests/scale-out.test.ts).
 */
import type { Express } from 'express';
import { UserModel } from '../src/models/user.model';
import { UserCache } from '../src/lib/user-cache';
import { createBlog } from './helpers/blogs';
import { useTestApp } from './helpers/test-app';
import { agent } from './helpers/agent';
import { registerAdmin, registerUser, type SignedInUser } from './helpers/users';

const ctx = useTestApp();
let cached: Express;
const elsewhere = ctx.api;
const here = agent(() => cached);
beforeAll(async () => {
  cached = ctx.buildApp({ AUTH_CACHE_TTL_MS: '60000' }).app;
});

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

describe('a role raised elsewhere (npm run make-admin)', () => {
  it('opens admin routes at once: a refusal never rests on a kept check, and the fresh check is kept', async () => {
    const user = await registerUser(ctx.app);
    expect((await here.as(user).get('/users')).status).toBe(403);

    await UserModel.updateOne({ _id: user.user._id }, { role: 'admin' });

    expect((await here.as(user).get('/users/current')).body.user.role).toBe('user');
    expect((await here.as(user).get('/users')).status).toBe(200);
    expect((await here.as(user).get('/users/current')).body.user.role).toBe('admin');
  });

  it('shows on other reads once the time set has passed', async () => {
    const shortLived = agent(ctx.buildApp({ AUTH_CACHE_TTL_MS: '200' }).app);
    const user = await registerUser(ctx.app);
    expect((await shortLived.as(user).get('/users/current')).body.user.role).toBe('user');

    await UserModel.updateOne({ _id: user.user._id }, { role: 'admin' });
    await pause(250);

    expect((await shortLived.as(user).get('/users/current')).body.user.role).toBe('admin');
  });

  it('answers 401, not 403, when the check made again finds the session ended elsewhere', async () => {
    const user = await registerUser(ctx.app);
    expect((await here.as(user).get('/users/current')).status).toBe(200);
    expect((await logout(elsewhere, user)).status).toBe(200);

    const response = await here.as(user).get('/users');

    expect(response.status).toBe(401);
  });
});

describe('a change announced on this instance', () => {
  it('logging out here ends reads here at once', async () => {
    const user = await registerUser(ctx.app);
    expect((await here.as(user).get('/users/current')).status).toBe(200);

    expect((await logout(here, user)).status).toBe(200);

    expect((await here.as(user).get('/users/current')).status).toBe(401);
  });

  it("an admin's deletion of the account here ends its reads here at once", async () => {
    const [user, admin] = await Promise.all([registerUser(ctx.app), registerAdmin(ctx.app)]);
    expect((await here.as(user).get('/users/current')).status).toBe(200);

    expect((await here.as(admin).delete(`/users/${user.user._id}`)).status).toBe(204);

    expect((await here.as(user).get('/users/current')).status).toBe(401);
  });

  it('a profile change here shows on the next read here', async () => {
    const user = await registerUser(ctx.app);
    expect((await here.as(user).get('/users/current')).body.user).not.toHaveProperty('firstName');

    expect((await here.as(user).put('/users/current').send({ first_name: 'Ada' })).status).toBe(200);

    expect((await here.as(user).get('/users/current')).body.user.firstName).toBe('Ada');
  });
});

describe('the authors that blogs show, kept as the session checks are', () => {
  const authorOf = async (api: typeof here, viewer: SignedInUser, slug: string) => [
    (await api.as(viewer).get(`/blogs/${slug}`).expect(200)).body.blog.author.firstName,
    (await api.as(viewer).get('/blogs/?fields=card&limit=50').expect(200)).body.blogs.find(
      (card: { slug: string }) => card.slug === slug,
    ).author.name,
  ];

  // the file's other admin is admin@example.com, deleted on the way
  let admin: SignedInUser;
  let reader: SignedInUser;
  beforeAll(async () => {
    [admin, reader] = await Promise.all([registerAdmin(ctx.app, 'chief@example.com'), registerUser(ctx.app)]);
  });

  it("show the author's profile change here at once, on blogs and cards", async () => {
    const { slug } = await createBlog(cached, admin, { status: 'published' });
    expect(await authorOf(here, reader, slug)).toEqual([undefined, admin.user.username]);

    expect((await here.as(admin).put('/users/current').send({ first_name: 'Grace' })).status).toBe(200);

    expect(await authorOf(here, reader, slug)).toEqual(['Grace', 'Grace']);
  });

  it('show a change not announced here (another instance, the database) once the time set has passed', async () => {
    const shortLived = agent(ctx.buildApp({ AUTH_CACHE_TTL_MS: '200' }).app);
    const { slug } = await createBlog(ctx.app, admin, { status: 'published' });
    await authorOf(shortLived, reader, slug);

    await UserModel.updateOne({ _id: admin.user._id }, { firstName: 'Edsger' });
    await pause(250);

    expect(await authorOf(shortLived, reader, slug)).toEqual(['Edsger', 'Edsger']);
  });
});

describe('AUTH_CACHE_TTL_MS', () => {
  it('is 5 seconds unless set', () => {
    expect(ctx.config.authCacheTtlMs).toBe(5000);
  });

  it('at 0, every read asks the database: a session ended on another instance reads no more at once', async () => {
    const uncached = agent(ctx.buildApp({ AUTH_CACHE_TTL_MS: '0' }).app);
    const other = agent(ctx.buildApp({}).app);
    const user = await registerUser(ctx.app);
    expect((await uncached.as(user).get('/users/current')).status).toBe(200);

    expect((await logout(other, user)).status).toBe(200);

    expect((await uncached.as(user).get('/users/current')).status).toBe(401);
  });
});

describe('UserCache', () => {
  const clock = { now: 1_000 };
  const cache = () => new UserCache<string>(100, 3, () => clock.now);

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

  it("forgets a user's entries on a change, and keeps no check that ran while a change came", () => {
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

  it('forgets everything when changes may have been missed, and keeps checks made after', () => {
    const sessions = cache();
    sessions.keep(sessions.mark(), 's1', 'u1', 'one');
    sessions.keep(sessions.mark(), 's2', 'u2', 'two');

    sessions.forgetAll();
    sessions.keep(sessions.mark(), 's3', 'u1', 'three');

    expect([sessions.get('s1', 'u1'), sessions.get('s2', 'u2'), sessions.get('s3', 'u1')]).toEqual([
      undefined,
      undefined,
      'three',
    ]);
  });
});
