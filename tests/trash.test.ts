/**
 * The trash: DELETE /blogs/{blogId} without permanent=true moves a post out of every reader's sight at
 * once, keeping its comments, likes and banner for a restore; admins list, restore, purge and empty it;
 * the maintenance run purges what outlived TRASH_RETENTION_DAYS, once across instances, and leaves
 * the records and banners of trashed posts alone until then.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { BlogModel } from '../src/models/blog.model';
import { CommentModel } from '../src/models/comment.model';
import { LikeModel } from '../src/models/like.model';
import { TrashedBlogModel } from '../src/models/trashed-blog.model';
import { createReconciliationService } from '../src/services/reconciliation.service';
import { createBannerStorage } from '../src/services/storage';
import { createTrashService } from '../src/services/trash.service';
import { createBlog } from './helpers/blogs';
import { makeImage } from './helpers/images';
import { useTestApp } from './helpers/test-app';
import { registerAdmin } from './helpers/users';

const ctx = useTestApp({ env: { SITE_URL: 'https://blog.example' } });
const api = ctx.api;
const admin = ctx.signedInAdmin();
const reader = ctx.signedInUser();

const fileOf = (url: string) => path.join(ctx.uploadsDir, 'banners', path.basename(new URL(url).pathname));

/** A published post the reader has liked and commented on, sent to the trash. */
async function trashedPost(fields: Record<string, string> = {}) {
  const blog = await createBlog(ctx.app, admin, { status: 'published', tags: 'trashy', ...fields });
  await api.as(reader).post(`/likes/blog/${blog._id}`).expect(200);
  await api.as(reader).post(`/comments/blog/${blog._id}`).send({ content: 'Still here?' }).expect(201);
  await api.as(admin).delete(`/blogs/${blog._id}`).expect(204);
  return blog;
}

const trashService = () =>
  createTrashService({
    storage: createBannerStorage(ctx.config.storage),
    logger: ctx.logger,
    retentionMs: 30 * 24 * 3600_000,
  });

describe('trashing', () => {
  it('hides the post from every read at once, and keeps its comments, likes and banner', async () => {
    const blog = await trashedPost();

    expect((await api.as(reader).get(`/blogs/${blog.slug}`)).status).toBe(404);
    expect((await api.as(admin).get(`/blogs/${blog.slug}`)).status).toBe(404);
    const ids = (await api.as(admin).get('/blogs/?limit=50')).body.blogs.map((each: { _id: string }) => each._id);
    expect(ids).not.toContain(blog._id);
    expect((await api.as(reader).get('/tags/')).body.tags).not.toContainEqual(
      expect.objectContaining({ name: 'trashy' }),
    );
    expect((await request(ctx.app).get('/feed.xml')).text).not.toContain(blog.slug);
    expect((await api.as(reader).post(`/likes/blog/${blog._id}`)).status).toBe(404);
    expect((await api.as(reader).get(`/comments/blog/${blog._id}`)).status).toBe(404);

    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(1);
    expect(await LikeModel.countDocuments({ blog: blog._id })).toBe(1);
    expect(existsSync(fileOf((blog.banner as { url: string }).url))).toBe(true);
    const listed = await api.as(admin).get('/trash/');
    expect(listed.body.blogs[0]).toMatchObject({ _id: blog._id, title: blog.title, trashedBy: admin.user._id });
    expect(listed.body.blogs[0]).not.toHaveProperty('content');
  });

  it('leaves a trashed post alone in the maintenance run: its records and banner stay', async () => {
    const blog = await trashedPost();
    const maintenance = createReconciliationService({
      storage: createBannerStorage(ctx.config.storage),
      logger: ctx.logger,
      orphanMinAgeMs: 0,
    });

    await maintenance.runMaintenance();

    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(1);
    expect(existsSync(fileOf((blog.banner as { url: string }).url))).toBe(true);
  });
});

describe('restoring', () => {
  it('brings the post back whole: comments, likes and counters', async () => {
    const blog = await trashedPost();

    const restored = await api.as(admin).post(`/trash/${blog._id}/restore`);

    expect(restored.status).toBe(200);
    expect(restored.body.blog).toMatchObject({ _id: blog._id, slug: blog.slug, likesCount: 1, commentsCount: 1 });
    expect((await api.as(reader).get(`/blogs/${blog.slug}`)).body.blog).toMatchObject({ likedByMe: true });
    expect((await api.as(reader).get(`/comments/blog/${blog._id}`)).body.total).toBe(1);
    expect(await TrashedBlogModel.countDocuments({ _id: blog._id })).toBe(0);
  });

  it('gives a fresh slug when another post took its own meanwhile', async () => {
    const blog = await trashedPost({ title: 'Taken title' });
    await createBlog(ctx.app, admin, { title: 'Taken title' });

    const restored = await api.as(admin).post(`/trash/${blog._id}/restore`);

    expect(restored.body.blog.slug).toMatch(new RegExp(`^${blog.slug}-[0-9a-f]{6}$`));
  });

  it('trashes the post as it is now, over a copy a restore cut short left behind', async () => {
    const blog = await trashedPost({ title: 'Before' });
    // a restore cut short: the post is back, its trash copy still there
    const copy = await TrashedBlogModel.findById(blog._id).lean();
    await api.as(admin).post(`/trash/${blog._id}/restore`).expect(200);
    await TrashedBlogModel.collection.insertOne(copy!);
    await api.as(admin).put(`/blogs/${blog._id}`).field('title', 'After').expect(200);

    await api.as(admin).delete(`/blogs/${blog._id}`).expect(204);
    const restored = await api.as(admin).post(`/trash/${blog._id}/restore`).expect(200);

    expect(restored.body.blog.title).toBe('After');
  });

  it('trashes the post as an edit landing mid-way left it: its new banner, not the old one the edit deleted', async () => {
    const blog = await createBlog(ctx.app, admin, { title: 'Before the edit' });
    const copyOf = TrashedBlogModel.collection.replaceOne.bind(TrashedBlogModel.collection);
    // the edit lands once the copy is written, before the post leaves `blogs`
    const spy = jest.spyOn(TrashedBlogModel.collection, 'replaceOne').mockImplementationOnce(async (...args) => {
      const copied = await copyOf(...(args as Parameters<typeof copyOf>));
      await api
        .as(admin)
        .put(`/blogs/${blog._id}`)
        .field('title', 'After the edit')
        .attach('banner_image', await makeImage('png', 80, 60), 'new.png')
        .expect(200);
      return copied;
    });

    await api.as(admin).delete(`/blogs/${blog._id}`).expect(204);
    spy.mockRestore();

    const copy = (await TrashedBlogModel.findById(blog._id).lean())!.blog as { title: string; banner: { url: string } };
    expect(copy.title).toBe('After the edit');
    expect(existsSync(fileOf(copy.banner.url))).toBe(true);
    expect(await BlogModel.exists({ _id: blog._id })).toBeNull();
  });

  it('refuses a post that is not in the trash with 400', async () => {
    const live = await createBlog(ctx.app, admin);
    expect((await api.as(admin).post(`/trash/${live._id}/restore`)).body).toEqual({
      code: 'BadRequest',
      message: 'This blog is not in the trash',
    });
  });

  it('brings a scheduled draft back still scheduled, unless its time passed in the trash: a restore never publishes', async () => {
    const later = new Date(Date.now() + 3600_000).toISOString();
    const [waiting, overdue] = await Promise.all([
      createBlog(ctx.app, admin, { publishAt: later }),
      createBlog(ctx.app, admin, { publishAt: later }),
    ]);
    for (const blog of [waiting, overdue]) await api.as(admin).delete(`/blogs/${blog._id}`).expect(204);
    // its time came while it was in the trash
    await TrashedBlogModel.updateOne({ _id: overdue._id }, { $set: { 'blog.publishAt': new Date(Date.now() - 1000) } });

    const [kept, dropped] = await Promise.all(
      [waiting, overdue].map((blog) => api.as(admin).post(`/trash/${blog._id}/restore`).expect(200)),
    );

    expect(kept.body.blog).toMatchObject({ status: 'draft', publishAt: later });
    expect(dropped.body.blog.status).toBe('draft');
    expect(dropped.body.blog).not.toHaveProperty('publishAt');
    // nothing left for the scheduler to publish
    expect(await BlogModel.exists({ _id: overdue._id, publishAt: { $exists: true } })).toBeNull();
  });

  it('brings the post back to search: its terms travel with it', async () => {
    const blog = await trashedPost({ title: 'Zebra crossing restored' });

    await api.as(admin).post(`/trash/${blog._id}/restore`).expect(200);

    const found = await api.as(reader).get('/blogs/?q=zebra');
    expect(found.body.blogs.map((each: { _id: string }) => each._id)).toEqual([blog._id]);
  });

  it('works out again the text of a copy trashed by older rules: its terms, its excerpt', async () => {
    const blog = await trashedPost({
      title: 'Okapi crossing restored',
      content: '<section>Alpha</section><dd>Omega</dd>',
    });
    // as an older version trashed it: no rules version, and words run together in its excerpt and terms
    await TrashedBlogModel.updateOne(
      { _id: blog._id },
      { $set: { 'blog.excerpt': 'AlphaOmega', 'blog.searchTerms': ['alphaomega'] }, $unset: { 'blog.textRules': 1 } },
    );

    const restored = await api.as(admin).post(`/trash/${blog._id}/restore`).expect(200);

    expect(restored.body.blog.excerpt).toBe('Alpha Omega');
    expect((await api.as(reader).get('/blogs/?q=okapi omega')).body.total).toBe(1);
  });

  it('does not bring its preview links back', async () => {
    const draft = await createBlog(ctx.app, admin);
    const link = (await api.as(admin).post(`/blogs/${draft._id}/preview-link`).expect(201)).body.url as string;
    await api.as(admin).delete(`/blogs/${draft._id}`).expect(204);
    await api.as(admin).post(`/trash/${draft._id}/restore`).expect(200);

    expect((await request(ctx.app).get(new URL(link).pathname)).status).toBe(404);
  });
});

describe('purging', () => {
  it('purges one post with its comments, likes and banner; then it is gone', async () => {
    const blog = await trashedPost();

    expect((await api.as(admin).delete(`/trash/${blog._id}`)).status).toBe(204);

    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(0);
    expect(await LikeModel.countDocuments({ blog: blog._id })).toBe(0);
    expect(existsSync(fileOf((blog.banner as { url: string }).url))).toBe(false);
    expect((await api.as(admin).post(`/trash/${blog._id}/restore`)).status).toBe(404);
  });

  it('leaves alone a post a restore is taking back: 404, and the restore finds it whole', async () => {
    const blog = await trashedPost();
    // a restore in flight has marked the copy
    await TrashedBlogModel.updateOne({ _id: blog._id }, { $set: { restoringAt: new Date() } });

    expect((await api.as(admin).delete(`/trash/${blog._id}`)).status).toBe(404);
    await api.as(admin).delete('/trash/').expect(204);

    const restored = await api.as(admin).post(`/trash/${blog._id}/restore`).expect(200);
    expect(restored.body.blog).toMatchObject({ likesCount: 1, commentsCount: 1 });
    expect(existsSync(fileOf((blog.banner as { url: string }).url))).toBe(true);
  });

  it('purges the copy a restore cut short a while ago left, and nothing of the post it put back', async () => {
    const blog = await trashedPost();
    const copy = await TrashedBlogModel.findById(blog._id).lean();
    await api.as(admin).post(`/trash/${blog._id}/restore`).expect(200);
    // the restore stopped after putting the post back, before taking its copy out of the trash
    await TrashedBlogModel.collection.insertOne({ ...copy!, restoringAt: new Date(Date.now() - 120_000) });

    expect((await api.as(admin).delete(`/trash/${blog._id}`)).status).toBe(204);

    expect(await TrashedBlogModel.exists({ _id: blog._id })).toBeNull();
    expect((await api.as(reader).get(`/blogs/${blog.slug}`)).body.blog).toMatchObject({ commentsCount: 1 });
    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(1);
    expect(existsSync(fileOf((blog.banner as { url: string }).url))).toBe(true);
  });

  it('of a restore and a purge at once, lets one win whole: never a post back without its banner', async () => {
    const posts = await Promise.all(Array.from({ length: 4 }, () => trashedPost()));

    const answers = await Promise.all(
      posts.flatMap((blog) => [
        api.as(admin).post(`/trash/${blog._id}/restore`),
        api.as(admin).delete(`/trash/${blog._id}`),
      ]),
    );

    for (const [index, blog] of posts.entries()) {
      const [restore, purge] = [answers[2 * index]!.status, answers[2 * index + 1]!.status];
      const live = (await api.as(admin).get(`/blogs/${blog.slug}`)).status === 200;
      const banner = existsSync(fileOf((blog.banner as { url: string }).url));
      expect({ restore, purge, live, banner }).toEqual(
        restore === 200
          ? { restore, purge: 404, live: true, banner: true }
          : { restore: 404, purge: 204, live: false, banner: false },
      );
    }
  });

  it('empties the whole trash', async () => {
    await trashedPost();
    await trashedPost();

    expect((await api.as(admin).delete('/trash/')).status).toBe(204);
    expect((await api.as(admin).get('/trash/')).body.total).toBe(0);
  });

  it('purges what outlived the retention, once with two instances sweeping, and nothing younger', async () => {
    const old = await trashedPost();
    const young = await trashedPost();
    await TrashedBlogModel.updateOne(
      { _id: old._id },
      { $set: { trashedAt: new Date(Date.now() - 31 * 24 * 3600_000) } },
    );

    const purged = await Promise.all([trashService().purgeExpired(), trashService().purgeExpired()]);

    expect(purged[0]! + purged[1]!).toBe(1);
    expect(await TrashedBlogModel.exists({ _id: old._id })).toBeNull();
    expect(await CommentModel.countDocuments({ blog: old._id })).toBe(0);
    expect(existsSync(fileOf((old.banner as { url: string }).url))).toBe(false);
    expect(await TrashedBlogModel.exists({ _id: young._id })).not.toBeNull();
  });

  it('purges the trashed posts of a deleted account with it', async () => {
    const author = await registerAdmin(
      ctx.buildApp({ ADMIN_EMAILS: 'leaving@example.com' }).app,
      'leaving@example.com',
    );
    const blog = await createBlog(ctx.app, author, { status: 'published' });
    await api.as(author).delete(`/blogs/${blog._id}`).expect(204);

    await api.as(author).delete('/users/current').expect(204);

    expect(await TrashedBlogModel.exists({ _id: blog._id })).toBeNull();
    expect(existsSync(fileOf((blog.banner as { url: string }).url))).toBe(false);
  });
});

describe('the switch', () => {
  it('refuses permanent=maybe with 400', async () => {
    const blog = await createBlog(ctx.app, admin);
    const answer = await api.as(admin).delete(`/blogs/${blog._id}?permanent=maybe`);
    expect(answer.status).toBe(400);
    expect(answer.body.errors.permanent.msg).toBe('permanent must be true or false');
  });

  it.each(['permanent=false&permanent=false', 'permanent=true&permanent=false', 'permanent=false&permanent=true'])(
    'refuses %s with 400 and leaves the post where it was: the one thing that cannot be undone is never guessed',
    async (query) => {
      const blog = await createBlog(ctx.app, admin);
      const answer = await api.as(admin).delete(`/blogs/${blog._id}?${query}`);

      expect(answer.status).toBe(400);
      expect(answer.body.errors.permanent.msg).toBe('permanent must be given once');
      expect(await BlogModel.exists({ _id: blog._id })).not.toBeNull();
      expect(await TrashedBlogModel.exists({ _id: blog._id })).toBeNull();
    },
  );
});
