/**
 * Account deletion and what goes with it: a user's likes and comments (and the counters they moved),
 * an author's blogs with their comments, likes and banner files, and the deleted user's tokens.
 * Blogs, likes and comments are made through the API; what is left afterwards is checked in the
 * database and on disk as well, since a deleted thing cannot be asked for through the API.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { BlogModel } from '../src/models/blog.model';
import { CommentModel } from '../src/models/comment.model';
import { LikeModel } from '../src/models/like.model';
import { createBlog } from './helpers/blogs';
import { useTestApp } from './helpers/test-app';
import { registerAdmin, registerUser, type SignedInUser } from './helpers/users';

// Enough whitelisted admins for one admin to delete others in several tests.
const ADMIN_EMAILS = [
  'admin@example.com',
  'author.one@example.com',
  'author.two@example.com',
  'author.three@example.com',
];

const ctx = useTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAILS.join(',') } });
const api = ctx.api;
const admin = ctx.signedInAdmin(ADMIN_EMAILS[0]);

type Blog = { _id: string; slug: string; banner?: unknown };

const like = (user: SignedInUser, blog: Blog) => api.as(user).post(`/likes/blog/${blog._id}`).expect(200);
const comment = (user: SignedInUser, blog: Blog, content = 'A comment') =>
  api.as(user).post(`/comments/blog/${blog._id}`).send({ content }).expect(201);

/** The counters as stored, next to the records they count. */
async function countsOf(blog: Blog) {
  const stored = await BlogModel.findById(blog._id).lean();
  return {
    likesCount: stored?.likesCount,
    likes: await LikeModel.countDocuments({ blog: blog._id }),
    commentsCount: stored?.commentsCount,
    comments: await CommentModel.countDocuments({ blog: blog._id }),
  };
}

/** Where local storage keeps a blog's banner: the file named at the end of its URL, in this file's uploads folder. */
function bannerFileOf(blog: Blog): string {
  const { url } = blog.banner as { url: string };
  return path.join(ctx.uploadsDir, 'banners', path.basename(new URL(url).pathname));
}

describe('a regular user deleting their own account', () => {
  it("removes their likes and comments and lowers the blogs' counters by exactly their share", async () => {
    // Arrange: two blogs; the leaving user likes both and comments three times, two others stay engaged.
    const first = await createBlog(ctx.app, admin, { status: 'published' });
    const second = await createBlog(ctx.app, admin, { status: 'published' });
    const leaving = await registerUser(ctx.app);
    const staying = await registerUser(ctx.app);
    const alsoStaying = await registerUser(ctx.app);
    await like(leaving, first);
    await like(leaving, second);
    await like(staying, first);
    await like(alsoStaying, first);
    await comment(leaving, first, 'leaving 1');
    await comment(leaving, first, 'leaving 2');
    await comment(leaving, second, 'leaving 3');
    await comment(staying, first, 'staying 1');
    await comment(alsoStaying, second, 'staying 2');
    await comment(admin, second, 'admin 1');
    expect(await countsOf(first)).toEqual({ likesCount: 3, likes: 3, commentsCount: 3, comments: 3 });
    expect(await countsOf(second)).toEqual({ likesCount: 1, likes: 1, commentsCount: 3, comments: 3 });

    // Act
    const response = await api.as(leaving).delete('/users/current');

    // Assert
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(await LikeModel.countDocuments({ user: leaving.user._id })).toBe(0);
    expect(await CommentModel.countDocuments({ author: leaving.user._id })).toBe(0);
    expect(await countsOf(first)).toEqual({ likesCount: 2, likes: 2, commentsCount: 1, comments: 1 });
    expect(await countsOf(second)).toEqual({ likesCount: 0, likes: 0, commentsCount: 2, comments: 2 });

    const firstAsReader = await api.as(staying).get(`/blogs/${first.slug}`).expect(200);
    expect(firstAsReader.body.blog).toMatchObject({ likesCount: 2, commentsCount: 1, likedByMe: true });
    const firstComments = await api.as(staying).get(`/comments/blog/${first._id}`).expect(200);
    expect(firstComments.body.total).toBe(1);
    expect(firstComments.body.comments.map((c: { content: string }) => c.content)).toEqual(['staying 1']);
    const secondComments = await api.as(staying).get(`/comments/blog/${second._id}`).expect(200);
    expect(secondComments.body.comments.map((c: { content: string }) => c.content).sort()).toEqual([
      'admin 1',
      'staying 2',
    ]);
  });

  it('leaves the blogs of the admin they engaged with in place', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const leaving = await registerUser(ctx.app);
    await like(leaving, blog);
    await comment(leaving, blog);

    await api.as(leaving).delete('/users/current').expect(204);

    expect((await api.as(admin).get(`/blogs/${blog.slug}`)).status).toBe(200);
    expect(existsSync(bannerFileOf(blog))).toBe(true);
  });
});

describe('an admin deleting another admin who wrote blogs', () => {
  it("deletes the author's blogs with their comments, likes and banner files, and leaves other blogs counted right", async () => {
    // Arrange: the doomed author has a published blog and a draft; the surviving admin has one blog.
    const doomed = await registerAdmin(ctx.app, ADMIN_EMAILS[1]);
    const published = await createBlog(ctx.app, doomed, { status: 'published' });
    const draft = await createBlog(ctx.app, doomed, { status: 'draft' });
    const kept = await createBlog(ctx.app, admin, { status: 'published' });
    const reader = await registerUser(ctx.app);
    const otherReader = await registerUser(ctx.app);
    await like(reader, published);
    await like(otherReader, published);
    await comment(reader, published);
    await comment(otherReader, published);
    await like(admin, draft);
    await comment(admin, draft);
    // engagement on the surviving blog, the doomed admin's share included
    await like(reader, kept);
    await like(doomed, kept);
    await comment(otherReader, kept, 'reader on kept');
    await comment(doomed, kept, 'doomed on kept');
    const doomedBlogs = [published, draft];
    for (const blog of [...doomedBlogs, kept]) expect(existsSync(bannerFileOf(blog))).toBe(true);

    // Act
    const response = await api.as(admin).delete(`/users/${doomed.user._id}`);

    // Assert
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    for (const blog of doomedBlogs) {
      const bySlug = await api.as(admin).get(`/blogs/${blog.slug}`);
      expect(bySlug.status).toBe(404);
      expect(bySlug.body.code).toBe('NotFound');
      expect(await BlogModel.exists({ _id: blog._id })).toBeNull();
      expect(await LikeModel.countDocuments({ blog: blog._id })).toBe(0);
      expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(0);
      expect(existsSync(bannerFileOf(blog))).toBe(false);
    }
    const ofAuthor = await api.as(admin).get(`/blogs/user/${doomed.user._id}`);
    expect(ofAuthor.body).toMatchObject({ total: 0, blogs: [] });

    expect(existsSync(bannerFileOf(kept))).toBe(true);
    expect(await countsOf(kept)).toEqual({ likesCount: 1, likes: 1, commentsCount: 1, comments: 1 });
    const keptComments = await api.as(reader).get(`/comments/blog/${kept._id}`).expect(200);
    expect(keptComments.body.comments.map((c: { content: string }) => c.content)).toEqual(['reader on kept']);
    expect(await LikeModel.countDocuments({ user: doomed.user._id })).toBe(0);
    expect(await CommentModel.countDocuments({ author: doomed.user._id })).toBe(0);
  });

  it("leaves the readers' own accounts and their engagement elsewhere untouched", async () => {
    const doomed = await registerAdmin(ctx.app, ADMIN_EMAILS[2]);
    const theirs = await createBlog(ctx.app, doomed, { status: 'published' });
    const kept = await createBlog(ctx.app, admin, { status: 'published' });
    const reader = await registerUser(ctx.app);
    await like(reader, theirs);
    await like(reader, kept);
    await comment(reader, theirs);
    await comment(reader, kept);

    await api.as(admin).delete(`/users/${doomed.user._id}`).expect(204);

    expect((await api.as(reader).get('/users/current')).status).toBe(200);
    expect(await LikeModel.countDocuments({ user: reader.user._id })).toBe(1);
    expect(await CommentModel.countDocuments({ author: reader.user._id })).toBe(1);
    expect(await countsOf(kept)).toEqual({ likesCount: 1, likes: 1, commentsCount: 1, comments: 1 });
  });

  it('lets an admin author delete their own account, blogs and all', async () => {
    const leaving = await registerAdmin(ctx.app, ADMIN_EMAILS[3]);
    const blog = await createBlog(ctx.app, leaving, { status: 'published' });
    const reader = await registerUser(ctx.app);
    await like(reader, blog);
    await comment(reader, blog);

    await api.as(leaving).delete('/users/current').expect(204);

    expect((await api.as(admin).get(`/blogs/${blog.slug}`)).status).toBe(404);
    expect(await LikeModel.countDocuments({ blog: blog._id })).toBe(0);
    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(0);
    expect(existsSync(bannerFileOf(blog))).toBe(false);
  });
});

describe('an account deleted while one of its requests is under way', () => {
  // A request that passed authentication just before the account's sessions were deleted may still write.
  // To test that interleaving every time rather than by luck, the test holds the request at its insert
  // (a spy on the model's `create`, passing through to the real one) until the account deletion has answered.
  afterEach(() => jest.restoreAllMocks());

  /** Sends `send()`, holds it at `model.create` until the account is deleted, then lets it finish. */
  async function deleteAccountDuring(
    model: { create: (...args: never[]) => unknown },
    leaving: SignedInUser,
    send: () => request.Test,
  ) {
    const original = model.create.bind(model) as (...args: unknown[]) => Promise<unknown>;
    let reachedInsert!: () => void;
    const atInsert = new Promise<void>((resolve) => (reachedInsert = resolve));
    let releaseInsert!: () => void;
    const released = new Promise<void>((resolve) => (releaseInsert = resolve));
    jest.spyOn(model, 'create').mockImplementationOnce((async (...args: unknown[]) => {
      reachedInsert();
      await released;
      return original(...args);
    }) as never);

    const pending = send().then((response) => response);
    await atInsert;
    const deletion = await api.as(leaving).delete('/users/current');
    releaseInsert();
    return { deletion, late: await pending };
  }

  it('leaves no like of the deleted user behind, and likesCount equal to the likes', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const leaving = await registerUser(ctx.app);

    const { deletion, late } = await deleteAccountDuring(LikeModel, leaving, () =>
      api.as(leaving).post(`/likes/blog/${blog._id}`),
    );

    expect(deletion.status).toBe(204);
    expect(await LikeModel.countDocuments({ user: leaving.user._id })).toBe(0);
    expect(await countsOf(blog)).toEqual({ likesCount: 0, likes: 0, commentsCount: 0, comments: 0 });
    expect(late.status).not.toBe(500);
  });

  it('leaves no comment of the deleted user behind, and commentsCount equal to the comments', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const leaving = await registerUser(ctx.app);

    const { deletion, late } = await deleteAccountDuring(CommentModel, leaving, () =>
      api.as(leaving).post(`/comments/blog/${blog._id}`).send({ content: 'last words' }),
    );

    expect(deletion.status).toBe(204);
    expect(await CommentModel.countDocuments({ author: leaving.user._id })).toBe(0);
    expect(await countsOf(blog)).toEqual({ likesCount: 0, likes: 0, commentsCount: 0, comments: 0 });
    expect(late.status).not.toBe(500);
  });
});

describe("a deleted user's tokens", () => {
  it('answer 401 everywhere after the user deletes their own account', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const leaving = await registerUser(ctx.app);
    await like(leaving, blog);

    await api.as(leaving).delete('/users/current').expect(204);

    const attempts = await Promise.all([
      api.as(leaving).get('/users/current'),
      api.as(leaving).get('/blogs/'),
      api.as(leaving).post(`/likes/blog/${blog._id}`),
      api.as(leaving).post(`/comments/blog/${blog._id}`).send({ content: 'ghost' }),
      api.as(leaving).delete('/users/current'),
      api.post('/auth/refresh-token').set('Cookie', leaving.refreshCookie),
    ]);
    expect(attempts.map((attempt) => attempt.status)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(attempts[0].body.code).toBe('AuthenticationError');
    expect(await countsOf(blog)).toEqual({ likesCount: 0, likes: 0, commentsCount: 0, comments: 0 });
  });

  it('answer 401 after an admin deletes the account', async () => {
    const victim = await registerUser(ctx.app);
    const blog = await createBlog(ctx.app, admin, { status: 'published' });

    await api.as(admin).delete(`/users/${victim.user._id}`).expect(204);

    expect((await api.as(victim).get('/users/current')).status).toBe(401);
    expect((await api.as(victim).post(`/comments/blog/${blog._id}`).send({ content: 'ghost' })).status).toBe(401);
    expect((await api.post('/auth/refresh-token').set('Cookie', victim.refreshCookie)).status).toBe(401);
    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(0);
  });
});
