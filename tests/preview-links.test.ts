/**
 * Preview links: an admin makes a signed, expiring link to a draft; whoever holds it reads that draft
 * without signing in, until it expires, the post is published or deleted, or the links are revoked.
 */
import request from 'supertest';
import { createBlog } from './helpers/blogs';
import { expectFieldError } from './helpers/expectations';
import { useTestApp } from './helpers/test-app';

const ctx = useTestApp({ env: { SITE_URL: 'https://blog.example' } });
const api = ctx.api;
const admin = ctx.signedInAdmin();
const reader = ctx.signedInUser();

const NOT_FOUND = { code: 'NotFound', message: 'Preview link not found or expired' };

async function linkTo(blogId: string, body: object = {}) {
  const answer = await api.as(admin).post(`/blogs/${blogId}/preview-link`).send(body);
  expect(answer.status).toBe(201);
  return answer.body as { url: string; siteUrl: string | null; token: string; expiresAt: string };
}

/** The link as its holder opens it: no token, no cookie. */
const open = (url: string) => request(ctx.app).get(new URL(url).pathname);

describe('a preview link', () => {
  it('reads the draft without signing in, never cached nor indexed, counting no view', async () => {
    const draft = await createBlog(ctx.app, admin, { title: 'Not yet' });
    const before = Date.now();
    const link = await linkTo(draft._id);

    expect(link.url).toBe(`http://localhost:3000/api/v1/blogs/preview/${link.token}`);
    expect(link.siteUrl).toBe(`https://blog.example/preview?token=${encodeURIComponent(link.token)}`);
    expect(Date.parse(link.expiresAt) - before).toBeGreaterThanOrEqual(24 * 3600_000 - 1000);
    const read = await open(link.url);
    expect(read.status).toBe(200);
    expect(read.body.blog).toMatchObject({ _id: draft._id, title: 'Not yet', status: 'draft', viewsCount: 0 });
    expect(read.body.blog.author).not.toHaveProperty('email');
    expect(read.headers).toMatchObject({ 'cache-control': 'private, no-store', 'x-robots-tag': 'noindex' });
    expect((await open(link.url)).body.blog.viewsCount).toBe(0);
  });

  it('reads only its own draft: a token of another draft, or altered, answers the same 404', async () => {
    const [first, second] = [await createBlog(ctx.app, admin), await createBlog(ctx.app, admin)];
    const link = await linkTo(first._id);
    const [payload, signature] = link.token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, b: second._id })).toString('base64url');

    for (const token of [`${forged}.${signature}`, `${payload}.${'A'.repeat(43)}`, 'nonsense', `${payload}`])
      expect((await request(ctx.app).get(`/api/v1/blogs/preview/${token}`)).body).toEqual(NOT_FOUND);
  });

  it('stops working when it expires', async () => {
    const draft = await createBlog(ctx.app, admin);
    const link = await linkTo(draft._id, { expiresIn: '5m' });
    jest.useFakeTimers({ now: Date.now() + 5 * 60_000 + 1000, doNotFake: ['nextTick', 'setImmediate', 'setTimeout'] });
    try {
      const read = await open(link.url);
      expect({ status: read.status, body: read.body }).toEqual({ status: 404, body: NOT_FOUND });
    } finally {
      jest.useRealTimers();
    }
  });

  it.each([
    ['published', (id: string) => api.as(admin).put(`/blogs/${id}`).field('status', 'published')],
    ['deleted', (id: string) => api.as(admin).delete(`/blogs/${id}`)],
    ['revoked', (id: string) => api.as(admin).delete(`/blogs/${id}/preview-link`)],
  ])('stops working once the post is %s', async (_case, end) => {
    const draft = await createBlog(ctx.app, admin);
    const link = await linkTo(draft._id);
    expect((await open(link.url)).status).toBe(200);

    expect((await end(draft._id)).status).toBeLessThan(300);
    expect((await open(link.url)).body).toEqual(NOT_FOUND);
  });

  it('stays dead once its post was published, even back in draft', async () => {
    const draft = await createBlog(ctx.app, admin);
    const link = await linkTo(draft._id);
    await api.as(admin).put(`/blogs/${draft._id}`).field('status', 'published').expect(200);
    await api.as(admin).put(`/blogs/${draft._id}`).field('status', 'draft').expect(200);
    expect((await open(link.url)).body).toEqual(NOT_FOUND);
  });

  it('is made again after a revocation, and the new one works', async () => {
    const draft = await createBlog(ctx.app, admin);
    await api.as(admin).delete(`/blogs/${draft._id}/preview-link`).expect(204);
    expect((await open((await linkTo(draft._id)).url)).status).toBe(200);
  });
});

describe('making one', () => {
  it('refuses a published post with 400', async () => {
    const post = await createBlog(ctx.app, admin, { status: 'published' });
    const answer = await api.as(admin).post(`/blogs/${post._id}/preview-link`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 'BadRequest', message: expect.stringMatching(/draft/) });
  });

  it.each(['1m', '31d', 'soon', '', 42])('refuses expiresIn %p with 400', async (expiresIn) => {
    const draft = await createBlog(ctx.app, admin);
    expectFieldError(await api.as(admin).post(`/blogs/${draft._id}/preview-link`).send({ expiresIn }), 'expiresIn');
  });

  it("is an admin's: a regular user gets 403, and an unknown field 400", async () => {
    const draft = await createBlog(ctx.app, admin);
    expect((await api.as(reader).post(`/blogs/${draft._id}/preview-link`)).status).toBe(403);
    expect((await api.as(admin).post(`/blogs/${draft._id}/preview-link`).send({ lifetime: '2h' })).status).toBe(400);
  });

  it('gives no front-end link without SITE_URL', async () => {
    const { app } = ctx.buildApp({ SITE_URL: '' });
    const draft = await createBlog(app, admin);
    const answer = await request(app)
      .post(`/api/v1/blogs/${draft._id}/preview-link`)
      .set('Authorization', `Bearer ${admin.accessToken}`);
    expect(answer.body.siteUrl).toBeNull();
  });
});
