/**
 * Scheduled publishing: a draft with publishAt goes live by itself, exactly once with two instances'
 * schedulers racing over one database, and after a restart whatever came due meanwhile.
 */
import request from 'supertest';
import { createPublishScheduler, type PublishScheduler } from '../src/services/publish-scheduler';
import type { DomainEvent } from '../src/services/events';
import { createBlog, postBlog } from './helpers/blogs';
import { expectFieldError } from './helpers/expectations';
import { useTestApp } from './helpers/test-app';
import { bearer } from './helpers/users';

/** What the app itself records (deletions); the schedulers below get recorders of their own. */
const appEvents: DomainEvent[] = [];
const ctx = useTestApp({ deps: { events: { record: async (event) => void appEvents.push(event) } } });
const admin = ctx.signedInAdmin();
const reader = ctx.signedInUser();

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A scheduler as one instance runs it, recording events into `recorded`. */
function scheduler(recorded: DomainEvent[], intervalMs = 100): PublishScheduler {
  return createPublishScheduler({
    events: { record: async (event) => void recorded.push(event) },
    logger: ctx.logger,
    intervalMs,
  });
}

const readAs = (user: typeof admin, slug: string) => request(ctx.app).get(`/api/v1/blogs/${slug}`).set(bearer(user));

describe('publishAt', () => {
  it.each([
    ['in the past', inMs(-60_000)],
    ['not a date', 'tomorrow'],
    ['more than a year ahead', inMs(400 * 24 * 3600 * 1000)],
  ])('refuses a publishAt %s with 400', async (_case, publishAt) => {
    expectFieldError(await postBlog(ctx.app, admin, { publishAt }), 'publishAt');
  });

  it('refuses publishAt beside status=published with 400 on create and update: never published early', async () => {
    const publishAt = inMs(3600_000);
    const created = await postBlog(ctx.app, admin, { publishAt, status: 'published' });
    expectFieldError(created, 'publishAt');
    expect(created.body.errors.publishAt.msg).toMatch(/without status=published/);

    const draft = await createBlog(ctx.app, admin);
    const updated = await request(ctx.app)
      .put(`/api/v1/blogs/${draft._id}`)
      .set(bearer(admin))
      .field('status', 'published')
      .field('publishAt', publishAt);
    expectFieldError(updated, 'publishAt');
    expect((await readAs(admin, draft.slug)).body.blog.status).toBe('draft');
  });

  it('keeps a scheduled post a draft that admins see with its publishAt, and lets them change and clear it', async () => {
    const publishAt = inMs(3600_000);
    const blog = await createBlog(ctx.app, admin, { publishAt });
    expect(blog).toMatchObject({ status: 'draft', publishAt, publishedAt: null });
    expect((await readAs(reader, blog.slug)).status).toBe(404);
    const later = inMs(7200_000);
    const changed = await request(ctx.app)
      .put(`/api/v1/blogs/${blog._id}`)
      .set(bearer(admin))
      .field('publishAt', later);
    expect(changed.body.blog.publishAt).toBe(later);
    const cleared = await request(ctx.app).put(`/api/v1/blogs/${blog._id}`).set(bearer(admin)).field('publishAt', '');
    expect(cleared.status).toBe(200);
    expect(cleared.body.blog).not.toHaveProperty('publishAt');
    expect(cleared.body.blog.status).toBe('draft');
  });
});

describe('publishAt on a published post', () => {
  const put = (blogId: string, fields: Record<string, string>) => {
    const form = request(ctx.app).put(`/api/v1/blogs/${blogId}`).set(bearer(admin));
    for (const [name, value] of Object.entries(fields)) void form.field(name, value);
    return form;
  };

  it('is refused alone, naming the way to schedule it again, and the post stays as it was', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published', title: 'Out already' });
    const refused = await put(blog._id, { publishAt: inMs(3600_000), title: 'Renamed' });
    expectFieldError(refused, 'publishAt');
    expect(refused.body.errors.publishAt.msg).toMatch(/send status=draft with it/);
    expect((await readAs(admin, blog.slug)).body.blog).toMatchObject({ title: 'Out already', status: 'published' });
  });

  it('takes the post down until then with status=draft, and an empty one is no change', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    await put(blog._id, { publishAt: '' }).expect(200);
    const publishAt = inMs(3600_000);
    const scheduled = await put(blog._id, { publishAt, status: 'draft' }).expect(200);
    expect(scheduled.body.blog).toMatchObject({ status: 'draft', publishAt });
  });
});

describe('the scheduler', () => {
  it('publishes a post when its time comes, with publishedAt the scheduled time, and records blog.published', async () => {
    const recorded: DomainEvent[] = [];
    const publishAt = inMs(1500);
    const blog = await createBlog(ctx.app, admin, { publishAt });
    const running = scheduler(recorded);
    running.start();
    try {
      for (let waited = 0; waited < 10_000 && recorded.length === 0; waited += 100) await sleep(100);
    } finally {
      await running.stop();
    }
    const read = await readAs(reader, blog.slug);
    expect(read.body.blog).toMatchObject({ status: 'published', publishedAt: publishAt });
    expect(read.body.blog).not.toHaveProperty('publishAt');
    // a change: the feed and the sitemap date the post from when it went out, not from its last edit as a draft
    expect(Date.parse(read.body.blog.updatedAt)).toBeGreaterThanOrEqual(Date.parse(publishAt));
    expect(recorded).toEqual([
      expect.objectContaining({
        id: `blog.published:${blog._id}:${publishAt}`,
        name: 'blog.published',
        blogId: blog._id,
      }),
    ]);
  });

  it('publishes each due post exactly once with two instances racing, and catches up on what came due while stopped', async () => {
    const posts = await Promise.all(
      Array.from({ length: 6 }, () => createBlog(ctx.app, admin, { publishAt: inMs(1000) })),
    );
    await sleep(1100); // due while no scheduler runs: a restart must publish them
    const first: DomainEvent[] = [];
    const second: DomainEvent[] = [];
    const published = await Promise.all([scheduler(first).runOnce(), scheduler(second).runOnce()]);
    expect(published[0] + published[1]).toBe(posts.length);
    // every post's event once per id (a racing record of the same id is the recorder's no-op)
    const ids = new Set([...first, ...second].map((event) => event.id));
    expect([...ids].sort()).toEqual(posts.map((post) => `blog.published:${post._id}:${post.publishAt}`).sort());
    for (const post of posts) expect((await readAs(reader, post.slug)).body.blog.status).toBe('published');
  });
});

describe('a publication whose event failed to record', () => {
  it('is re-recorded by the next pass, and published only once', async () => {
    const blog = await createBlog(ctx.app, admin, { publishAt: inMs(500) });
    await sleep(600);
    const failing = createPublishScheduler({
      events: { record: async () => Promise.reject(new Error('recorder down')) },
      logger: ctx.logger,
      intervalMs: 100,
    });
    await expect(failing.runOnce()).rejects.toThrow('recorder down');
    const recorded: DomainEvent[] = [];
    expect(await scheduler(recorded).runOnce()).toBe(0);
    expect(recorded.map((event) => event.id)).toEqual([`blog.published:${blog._id}:${blog.publishAt}`]);
    expect(await scheduler(recorded).runOnce()).toBe(0);
    expect(recorded).toHaveLength(1);
  });
});

describe('events of the app', () => {
  it('records blog.deleted once a blog is deleted', async () => {
    const blog = await createBlog(ctx.app, admin);
    expect((await request(ctx.app).delete(`/api/v1/blogs/${blog._id}?permanent=true`).set(bearer(admin))).status).toBe(
      204,
    );
    expect(appEvents).toContainEqual(
      expect.objectContaining({ id: `blog.deleted:${blog._id}`, name: 'blog.deleted', blogId: blog._id }),
    );
  });

  it('records no blog.updated and keeps updatedAt for an edit that changes nothing, as a form sending every field', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published', title: 'Unchanged', content: '<p>Same</p>' });
    const edit = (fields: Record<string, string>) => {
      const req = request(ctx.app).put(`/api/v1/blogs/${blog._id}`).set(bearer(admin));
      for (const [name, value] of Object.entries(fields)) void req.field(name, value);
      return req.expect(200);
    };

    const empty = await edit({});
    const same = await edit({ title: 'Unchanged', content: '<p>Same</p>', status: 'published' });
    // a slug already the title's own is not made again
    const sameSlug = await edit({ regenerate_slug: 'true' });

    for (const answer of [empty, same, sameSlug]) expect(answer.body.blog.updatedAt).toBe(blog.updatedAt);
    expect(sameSlug.body.blog.slug).toBe(blog.slug);
    expect(appEvents.filter((event) => event.blogId === blog._id).map((event) => event.name)).toEqual([
      'blog.published',
    ]);
    // and a real change still is one
    const changed = await edit({ title: 'Changed' });
    expect(changed.body.blog.updatedAt).not.toBe(blog.updatedAt);
    expect(appEvents.filter((event) => event.blogId === blog._id).map((event) => event.name)).toEqual([
      'blog.published',
      'blog.updated',
    ]);
  });
});
