/**
 * PUBLIC_READS: off by default (the interface requires a token); when the operator turns it on, anonymous
 * visitors read published blogs and their comments, never drafts, with likedByMe false, while a token that is
 * sent still counts and an invalid one is still refused.
 */
import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../src/app';
import { createBlog } from './helpers/blogs';
import { useTestApp } from './helpers/test-app';
import { agent } from './helpers/agent';
import { bearer, registerAdmin, registerUser, type SignedInUser } from './helpers/users';

let publicApp: Express;
let admin: SignedInUser;
let reader: SignedInUser;
let published: { _id: string; slug: string };
let draft: { _id: string; slug: string };
const ctx = useTestApp();
const api = ctx.api;
beforeAll(async () => {
  publicApp = ctx.buildApp({ PUBLIC_READS: 'true' }).app;
  admin = await registerAdmin(ctx.app);
  reader = await registerUser(ctx.app);
  published = await createBlog(ctx.app, admin, { status: 'published' });
  draft = await createBlog(ctx.app, admin, { status: 'draft' });
  await api.as(reader).post(`/likes/blog/${published._id}`).expect(200);
  await api.as(reader).post(`/comments/blog/${published._id}`).send({ content: 'Nice' }).expect(201);
});

const readPaths = () => [
  '/api/v1/blogs',
  `/api/v1/blogs/user/${admin.user._id}`,
  `/api/v1/blogs/${published.slug}`,
  `/api/v1/comments/blog/${published._id}`,
];

describe('without PUBLIC_READS (the default)', () => {
  it('answers 401 to every read without a token, as the interface says', async () => {
    expect(ctx.config.publicReads).toBe(false);
    for (const path of readPaths()) {
      const response = await request(ctx.app).get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 401 });
    }
  });
});

describe('with PUBLIC_READS=true', () => {
  it('lets anonymous visitors list published blogs only, likedByMe false, authors without email', async () => {
    for (const path of ['/api/v1/blogs', `/api/v1/blogs/user/${admin.user._id}`]) {
      const response = await request(publicApp).get(path);
      expect(response.status).toBe(200);
      const ids = response.body.blogs.map((blog: { _id: string }) => blog._id);
      expect(ids).toContain(published._id);
      expect(ids).not.toContain(draft._id);
      expect(response.body.blogs.every((blog: { status: string }) => blog.status === 'published')).toBe(true);
      const blog = response.body.blogs.find((item: { _id: string }) => item._id === published._id);
      expect(blog.likedByMe).toBe(false);
      expect(blog.likesCount).toBe(1);
      expect(blog.author).not.toHaveProperty('email');
    }
  });

  it('lets anonymous visitors read a published blog by slug and its comments, but never a draft', async () => {
    const blog = await agent(publicApp).get(`/blogs/${published.slug}`);
    expect(blog.status).toBe(200);
    expect(blog.body.blog).toMatchObject({ _id: published._id, likedByMe: false });

    const comments = await agent(publicApp).get(`/comments/blog/${published._id}`);
    expect(comments.status).toBe(200);
    expect(comments.body.comments).toHaveLength(1);
    expect(comments.body.comments[0].author).not.toHaveProperty('email');

    expect((await agent(publicApp).get(`/blogs/${draft.slug}`)).status).toBe(404);
    expect((await agent(publicApp).get(`/comments/blog/${draft._id}`)).status).toBe(404);
  });

  it('still counts a token that is sent: the reader sees their like, the admin sees drafts', async () => {
    const asReader = await agent(publicApp).as(reader).get(`/blogs/${published.slug}`);
    expect(asReader.body.blog.likedByMe).toBe(true);

    const asAdmin = await agent(publicApp).as(admin).get('/blogs');
    expect(asAdmin.body.blogs.map((blog: { _id: string }) => blog._id)).toContain(draft._id);
  });

  it('still refuses an invalid token with 401 rather than reading anonymously', async () => {
    for (const path of readPaths()) {
      const response = await request(publicApp).get(path).set('Authorization', 'Bearer not.a.token');
      expect({ path, status: response.status }).toEqual({ path, status: 401 });
    }
  });

  it('keeps every write and the admin list behind a token', async () => {
    expect((await agent(publicApp).post(`/comments/blog/${published._id}`).send({ content: 'anon' })).status).toBe(401);
    expect((await agent(publicApp).post(`/likes/blog/${published._id}`)).status).toBe(401);
    expect((await agent(publicApp).delete(`/blogs/${published._id}`)).status).toBe(401);
    expect((await agent(publicApp).get('/comments')).status).toBe(401);
    expect((await agent(publicApp).get('/users/current')).status).toBe(401);
  });
});

describe('HTTP caching of the reads', () => {
  // every anonymous read: the lists, a slug, a blog's comments, and the tags
  const cachedPaths = () => [...readPaths(), '/api/v1/tags'];

  it('marks anonymous answers public for a CDN, with an ETag that revalidates to 304', async () => {
    // HTTP caching below the contract (it lists no 304s on these reads): an app the contract check does not wrap
    const { config } = ctx.buildApp({ PUBLIC_READS: 'max-age=30,stale-while-revalidate=120' });
    const cdnApp = createApp({ config, logger: ctx.logger });
    for (const path of cachedPaths()) {
      const first = await request(cdnApp).get(path).expect(200);
      expect({ path, headers: first.headers }).toMatchObject({
        path,
        headers: {
          'cache-control': 'public, max-age=30, stale-while-revalidate=120',
          vary: expect.stringContaining('Authorization'),
          etag: expect.stringMatching(/^W\/"/),
        },
      });
      // the slug read counts a view, so only the lists keep their bytes (and their ETag) from one read to the next
      if (!path.includes(published.slug)) {
        const again = await request(cdnApp).get(path).set('If-None-Match', first.headers.etag);
        expect(again.status).toBe(304);
        // a 304 repeats the 200's Vary, or a cache refreshed by it could hand its gzip copy to any client
        expect({ path, vary: again.headers.vary }).toEqual({ path, vary: first.headers.vary });
        expect(first.headers.vary).toContain('Accept-Encoding');
      }
    }
  });

  it('keeps every signed-in answer private and varying on the token, so no browser hands it to a request without', async () => {
    // a page's fetch(…, {cache: 'force-cache'}) after logout read the last user's profile from the browser's cache
    const accountReads: [SignedInUser, string][] = [
      [reader, '/api/v1/users/current'],
      [reader, '/api/v1/auth/sessions'],
      [admin, '/api/v1/users/'],
      [admin, '/api/v1/comments/'],
      [admin, '/api/v1/trash/'],
      [admin, '/api/v1/webhooks/'],
    ];
    for (const [who, path] of accountReads) {
      const response = await request(ctx.app).get(path).set(bearer(who)).expect(200);
      expect({ path, cache: response.headers['cache-control'], vary: response.headers.vary }).toEqual({
        path,
        cache: 'private',
        vary: expect.stringContaining('Authorization'),
      });
    }
  });

  it("keeps a signed-in reader's answers private, and refusals uncached", async () => {
    for (const path of cachedPaths()) {
      const response = await request(publicApp).get(path).set(bearer(reader)).expect(200);
      expect({ path, cache: response.headers['cache-control'], vary: response.headers.vary }).toEqual({
        path,
        cache: 'private',
        vary: expect.stringContaining('Authorization'),
      });
    }
    const refused = await request(publicApp).get(`/api/v1/blogs/${draft.slug}`);
    expect(refused.status).toBe(404);
    expect(refused.headers['cache-control']).toBeUndefined();
  });
});
