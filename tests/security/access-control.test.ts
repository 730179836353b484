/**
 * Who may do what (each admin operation refused to a regular user is in tests/shared-refusals.test.ts): a comment deleted
 * only by its author or an admin, drafts hidden on every path that reads or touches a blog, and
 * forged or outlived tokens refused. Each refusal leaves the database as it was.
 */
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { createBlog } from '../helpers/blogs';
import { bearer, registerUser } from '../helpers/users';
import { expectCleanRefusal, expectDatabaseUnchanged, useTargetApp } from './helpers';

const { ctx, api, admin, reader, published } = useTargetApp();
const draft = ctx.fixture(() => createBlog(ctx.app, admin, { title: 'A secret draft', status: 'draft' }));

const call = (method: string, url: string) =>
  (request(ctx.app) as unknown as Record<string, (url: string) => request.Test>)[method](url);

describe('every admin operation of the contract, as a regular user', () => {
  // Each admin operation answering 403 to a regular user and changing nothing: tests/shared-refusals.test.ts
  it('refuses to register as admin without a whitelisted email, creating nothing', async () => {
    const response = await expectDatabaseUnchanged(() =>
      api.post('/auth/register').send({ email: 'mallory@example.com', password: 'password123', role: 'admin' }),
    );
    expectCleanRefusal(response, 403);
  });
});

describe('comments', () => {
  it("a user cannot delete another user's comment; its author and an admin can", async () => {
    const author = await registerUser(ctx.app);
    const commentOn = async () =>
      (await api.as(author).post(`/comments/blog/${published._id}`).send({ content: 'Mine' }).expect(201)).body.comment
        ._id as string;
    const commentId = await commentOn();

    const response = await expectDatabaseUnchanged(() => api.as(reader).delete(`/comments/${commentId}`));
    expectCleanRefusal(response, 403);

    expect((await api.as(author).delete(`/comments/${commentId}`)).status).toBe(204);
    expect((await api.as(admin).delete(`/comments/${await commentOn()}`)).status).toBe(204);
  });
});

describe('drafts, for a regular user, on every path that reads or touches a blog', () => {
  it('are absent from GET /blogs/ and GET /blogs/user/{userId}', async () => {
    for (const url of ['/blogs/?limit=50', `/blogs/user/${admin.user._id}?limit=50`]) {
      const response = await api.as(reader).get(url);
      expect(response.status).toBe(200);
      const ids = (response.body.blogs as Array<{ _id: string; status: string }>).map((blog) => blog._id);
      expect(ids).toContain(published._id);
      expect(ids).not.toContain(draft._id);
      expect(response.text).not.toContain('A secret draft');
    }
  });

  it.each([
    ['GET', () => `/api/v1/blogs/${draft.slug}`],
    ['GET', () => `/api/v1/comments/blog/${draft._id}`],
    ['POST', () => `/api/v1/comments/blog/${draft._id}`],
    ['POST', () => `/api/v1/likes/blog/${draft._id}`],
    ['DELETE', () => `/api/v1/likes/blog/${draft._id}`],
  ])('%s %s answers 404, counts no view and changes nothing', async (method, url) => {
    // only a comment takes a body: any other route refuses unknown fields with 400 before looking for the blog
    const body = url().includes('/comments/') && method === 'POST' ? { content: 'Peek' } : undefined;
    const response = await expectDatabaseUnchanged(() =>
      call(method.toLowerCase(), url()).set(bearer(reader)).send(body),
    );
    expectCleanRefusal(response, 404);
    expect(response.text).not.toContain('A secret draft');
  });

  it('are all visible to an admin', async () => {
    expect((await api.as(admin).get(`/blogs/${draft.slug}`)).status).toBe(200);
  });
});

const decode = (token: string) => jwt.decode(token) as { sub: string; sid: string; exp: number; iat: number };
const currentUserWith = (token: string) => api.get('/users/current').set('Authorization', `Bearer ${token}`);

describe('token forgeries', () => {
  it("refuses a token whose payload was changed (another user's id), its signature left as it was", async () => {
    const attacker = await registerUser(ctx.app);
    const [header, , signature] = attacker.accessToken.split('.');
    const claims = { ...decode(attacker.accessToken), sub: admin.user._id };
    const tampered = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    const response = await expectDatabaseUnchanged(() => currentUserWith(tampered));
    expectCleanRefusal(response, 401);
    // and with it no admin route either
    expectCleanRefusal(await api.get('/users/').set('Authorization', `Bearer ${tampered}`), 401);
  });

  it('refuses a token signed with a guessed secret, and one with alg "none" naming an admin', async () => {
    const claims = decode(admin.accessToken);
    for (const forged of [
      jwt.sign({ sid: claims.sid }, 'secret', { algorithm: 'HS256', subject: claims.sub }),
      jwt.sign({ sid: claims.sid }, '', { algorithm: 'none', subject: claims.sub }),
    ]) {
      const response = await expectDatabaseUnchanged(() =>
        api.delete(`/users/${reader.user._id}`).set('Authorization', `Bearer ${forged}`),
      );
      expectCleanRefusal(response, 401);
    }
  });

  it("refuses the other sessions' tokens after a password change, access and refresh alike", async () => {
    const password = 'password123';
    const owner = await registerUser(ctx.app, { password });
    const stolen = (await api.post('/auth/login').send({ email: owner.user.email, password }).expect(200)).body
      .accessToken as string;
    const stolenCookie = (
      await api.post('/auth/login').send({ email: owner.user.email, password }).expect(200)
    ).headers['set-cookie'][0].split(';')[0];
    await api.as(owner).put('/users/current').send({ password: 'a-new-password' }).expect(200);

    expectCleanRefusal(await expectDatabaseUnchanged(() => currentUserWith(stolen)), 401);
    expectCleanRefusal(
      await expectDatabaseUnchanged(() => api.post('/auth/refresh-token').set('Cookie', stolenCookie)),
      401,
    );
    // the session that changed it goes on
    expect((await currentUserWith(owner.accessToken)).status).toBe(200);
  });

  it('refuses every token of an account deleted by its owner', async () => {
    const owner = await registerUser(ctx.app);
    await api.as(owner).delete('/users/current').expect(204);
    expectCleanRefusal(await expectDatabaseUnchanged(() => currentUserWith(owner.accessToken)), 401);
    expectCleanRefusal(
      await expectDatabaseUnchanged(() => api.post('/auth/refresh-token').set('Cookie', owner.refreshCookie)),
      401,
    );
  });

  it('refuses a refresh cookie replayed after logout, and a second logout with it', async () => {
    const owner = await registerUser(ctx.app);
    await api.as(owner).post('/auth/logout').set('Cookie', owner.refreshCookie).expect(200);
    expectCleanRefusal(
      await expectDatabaseUnchanged(() => api.post('/auth/refresh-token').set('Cookie', owner.refreshCookie)),
      401,
    );
    expectCleanRefusal(
      await expectDatabaseUnchanged(() => api.as(owner).post('/auth/logout').set('Cookie', owner.refreshCookie)),
      401,
    );
  });

  it("refuses to log out another user's session with one's own access token", async () => {
    const victim = await registerUser(ctx.app);
    const attacker = await registerUser(ctx.app);
    const response = await expectDatabaseUnchanged(() =>
      api.as(attacker).post('/auth/logout').set('Cookie', victim.refreshCookie),
    );
    expectCleanRefusal(response, 401);
    expect((await api.post('/auth/refresh-token').set('Cookie', victim.refreshCookie)).status).toBe(200);
  });
});
