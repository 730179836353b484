/**
 * Publishes scheduled drafts when their `publishAt` comes. Every instance runs a pass every few seconds;
 * each post goes live through one conditional atomic update (still a draft, still due at that time), so it
 * is published exactly once whatever the number of instances, and whatever came due while none ran is
 * published by the first pass after a start. The same update marks the post `publishEventPending`; the
 * marker is cleared once `blog.published` is recorded, so a crash in between is re-recorded by a later
 * pass (the recorder ignores an event id it has seen: racing or retried records are no-ops).
 */
import pLimit from 'p-limit';
import type { Histogram } from 'prom-client';
import { backgroundPasses } from '../lib/background-passes';
import type { Logger } from '../lib/logger';
import { BLOG_VIEW_FIELDS, BlogModel, blogView } from '../models/blog.model';
import { USER_VIEW_FIELDS, UserModel, publicUserView } from '../models/user.model';
import type { EventRecorder } from './events';

/** Posts read per query, and how many batches one pass may take (the rest wait for the next pass). */
const BATCH = 200;
const MAX_BATCHES = 25;
/** Posts published (or their events recorded) at once: each is one conditional update. */
const CONCURRENCY = 8;

export interface PublishSchedulerDeps {
  events: EventRecorder;
  logger: Logger;
  lateness?: Histogram;
  /** Milliseconds between passes. */
  intervalMs: number;
}

export function createPublishScheduler({ events, logger, lateness, intervalMs }: PublishSchedulerDeps) {
  const inParallel = pLimit(CONCURRENCY);

  /** Publishes one due post if no other pass did; answers whether this pass did. */
  async function publishOne(id: unknown, publishAt: Date): Promise<boolean> {
    const published = await BlogModel.findOneAndUpdate(
      { _id: id, status: 'draft', publishAt },
      {
        $set: { status: 'published', publishedAt: publishAt, publishEventPending: true },
        $unset: { publishAt: 1 },
        // as a publication by hand does: the post's preview links end for good
        $inc: { previewVersion: 1 },
      },
      // a change like any edit (updatedAt now): the feed's and the sitemap's dates say when the post went out
      { new: true, projection: { _id: 1 } },
    ).lean();
    if (published) lateness?.observe((Date.now() - publishAt.getTime()) / 1000);
    return published !== null;
  }

  /** Records blog.published for a post the marker names, then clears the marker. */
  async function recordPublication(id: unknown): Promise<void> {
    const blog = await BlogModel.findOne({ _id: id, publishEventPending: true }, BLOG_VIEW_FIELDS).lean();
    if (!blog || !blog.publishedAt) return;
    const author = await UserModel.findById(blog.author, USER_VIEW_FIELDS).lean();
    const publishedAt = new Date(blog.publishedAt);
    await events.record({
      id: `blog.published:${String(blog._id)}:${publishedAt.toISOString()}`,
      name: 'blog.published',
      blogId: String(blog._id),
      payload: JSON.parse(JSON.stringify(blogView(blog, author ? publicUserView(author) : null))),
      occurredAt: publishedAt,
    });
    await BlogModel.updateOne({ _id: id }, { $unset: { publishEventPending: 1 } }, { timestamps: false });
  }

  /**
   * Runs `work` over every post `find` yields, a batch at a time, a few at once, until a batch comes back
   * short (or MAX_BATCHES): a thousand posts due in the same minute go in one pass, not one batch per pass.
   */
  async function drain(find: () => Promise<Array<{ _id: unknown }>>, work: (id: unknown) => Promise<boolean>) {
    let done = 0;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const posts = await find();
      const outcomes = await Promise.all(posts.map((post) => inParallel(() => work(post._id))));
      done += outcomes.filter(Boolean).length;
      if (posts.length < BATCH) break;
    }
    return done;
  }

  /** One pass: publish what is due, then record every publication whose event is still pending. */
  async function runOnce(now = new Date()): Promise<number> {
    const dueAt = new Map<string, Date>();
    const published = await drain(
      async () => {
        const due = await BlogModel.find({ status: 'draft', publishAt: { $lte: now } }, 'publishAt')
          .sort({ publishAt: 1 })
          .limit(BATCH)
          .lean();
        for (const blog of due) if (blog.publishAt) dueAt.set(String(blog._id), blog.publishAt);
        return due;
      },
      (id) => publishOne(id, dueAt.get(String(id))!),
    );
    await drain(
      () => BlogModel.find({ publishEventPending: true }, '_id').limit(BATCH).lean(),
      async (id) => {
        await recordPublication(id);
        return true;
      },
    );
    return published;
  }

  return { runOnce, ...backgroundPasses(() => runOnce(), intervalMs, logger, 'scheduled publishing') };
}

export type PublishScheduler = ReturnType<typeof createPublishScheduler>;
