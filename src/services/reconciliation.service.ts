/**
 * Counters that heal. A like or comment and its counter are two writes without a transaction, so a
 * crash or a database cut between them leaves `likesCount`/`commentsCount` off by one for good. The
 * reconciliation recounts the records per blog and sets every counter that differs, logging each fix;
 * it also removes likes and comments whose blog is gone (a crash in the middle of deleting a blog).
 *
 * The orphan sweep removes banner files that no blog names (a crash between storing the file and the
 * record, an upload that succeeded after the API gave up), with their variants, once they are older than
 * `minAgeMs` so a file whose blog is still being saved is never touched.
 *
 * Run at start-up in the background, every RECONCILE_INTERVAL_MS, and by `npm run reconcile`.
 */
import type { Types } from 'mongoose';
import type { Logger } from '../lib/logger';
import { BlogModel } from '../models/blog.model';
import { TrashedBlogModel } from '../models/trashed-blog.model';
import { CommentModel } from '../models/comment.model';
import { LikeModel } from '../models/like.model';
import type { BannerStorage } from './storage';

export interface CounterFix {
  blog: string;
  counter: 'likesCount' | 'commentsCount';
  from: number;
  to: number;
}

export interface ReconciliationReport {
  blogsChecked: number;
  fixes: CounterFix[];
  orphanLikesRemoved: number;
  orphanCommentsRemoved: number;
}

async function countsPerBlog(model: typeof LikeModel | typeof CommentModel): Promise<Map<string, number>> {
  const groups = await (model as typeof LikeModel).aggregate<{ _id: Types.ObjectId; count: number }>([
    { $group: { _id: '$blog', count: { $sum: 1 } } },
  ]);
  return new Map(groups.map((group) => [String(group._id), group.count]));
}

const COUNTED = [
  ['likesCount', LikeModel],
  ['commentsCount', CommentModel],
] as const;

/**
 * Recounts one blog's likes and comments and sets each counter that differs, only if it has not moved
 * since it was read, so that a like or comment counted meanwhile is not undone. `consistent` says the
 * counters were found equal to the records. A record written between the count and the set whose `$inc`
 * lands after the set leaves the counter one over: whoever calls this checks again later (the next
 * reconciliation, or the counter repair once the write's deadline has passed).
 */
export async function repairBlogCounters(blogId: unknown): Promise<{ fixes: CounterFix[]; consistent: boolean }> {
  const blog = await BlogModel.findById(blogId).select({ likesCount: 1, commentsCount: 1 }).lean();
  // a deleted blog's records go with it (or with the reconciliation's orphan sweep)
  if (!blog) return { fixes: [], consistent: true };
  const fixes: CounterFix[] = [];
  let consistent = true;
  for (const [counter, model] of COUNTED) {
    const recorded = blog[counter] ?? 0;
    const actual = await (model as typeof LikeModel).countDocuments({ blog: blog._id });
    if (actual === recorded) continue;
    consistent = false;
    const { modifiedCount } = await BlogModel.updateOne(
      { _id: blog._id, [counter]: recorded },
      { $set: { [counter]: actual } },
      { timestamps: false },
    );
    if (modifiedCount) fixes.push({ blog: String(blog._id), counter, from: recorded, to: actual });
  }
  return { fixes, consistent };
}

async function reconcileCounters(logger: Logger): Promise<ReconciliationReport> {
  const [likes, comments] = await Promise.all([countsPerBlog(LikeModel), countsPerBlog(CommentModel)]);
  const fixes: CounterFix[] = [];
  const seen = new Set<string>();
  let blogsChecked = 0;
  const blogs = await BlogModel.find({}).select({ likesCount: 1, commentsCount: 1 }).lean();
  for (const blog of blogs) {
    blogsChecked += 1;
    const id = String(blog._id);
    seen.add(id);
    const differs =
      (likes.get(id) ?? 0) !== (blog.likesCount ?? 0) || (comments.get(id) ?? 0) !== (blog.commentsCount ?? 0);
    // recounted alone just before fixing (a fix missed now is made by the next run)
    if (differs) fixes.push(...(await repairBlogCounters(blog._id)).fixes);
  }

  // records of blogs that no longer exist; the blog deletion removes them, unless it was cut short
  const missing = (counts: Map<string, number>) => [...counts.keys()].filter((id) => !seen.has(id));
  const goneForLikes = missing(likes);
  const goneForComments = missing(comments);
  const stillGone = async (ids: string[]) => {
    if (ids.length === 0) return [];
    // a trashed blog keeps its records, for a restore
    const [existing, trashed] = await Promise.all([
      BlogModel.find({ _id: { $in: ids } }, '_id').lean(),
      TrashedBlogModel.find({ _id: { $in: ids } }, '_id').lean(),
    ]);
    const present = new Set([...existing, ...trashed].map((blog) => String(blog._id)));
    return ids.filter((id) => !present.has(id));
  };
  const [likeBlogs, commentBlogs] = await Promise.all([stillGone(goneForLikes), stillGone(goneForComments)]);
  const orphanLikesRemoved = likeBlogs.length
    ? (await LikeModel.deleteMany({ blog: { $in: likeBlogs } })).deletedCount
    : 0;
  const orphanCommentsRemoved = commentBlogs.length
    ? (await CommentModel.deleteMany({ blog: { $in: commentBlogs } })).deletedCount
    : 0;

  const report = { blogsChecked, fixes, orphanLikesRemoved, orphanCommentsRemoved };
  for (const fix of fixes)
    logger.warn(`reconciliation: blog ${fix.blog} ${fix.counter} was ${fix.from}, records say ${fix.to}: fixed`);
  logger.info(
    `reconciliation: ${blogsChecked} blogs checked, ${fixes.length} counters fixed, ` +
      `${orphanLikesRemoved} likes and ${orphanCommentsRemoved} comments of deleted blogs removed`,
  );
  return report;
}

export interface SweepReport {
  filesChecked: number;
  removed: string[];
}

/** Asked again just before removing: a blog written (or trashed) since the first look names it now. */
const isNamed = async (key: string) =>
  (await BlogModel.exists({ 'banner.key': key })) !== null ||
  (await TrashedBlogModel.exists({ bannerKey: key })) !== null;

async function sweepOrphanBanners(
  storage: BannerStorage,
  { minAgeMs, logger }: { minAgeMs: number; logger: Logger },
): Promise<SweepReport> {
  const files = await storage.list();
  const oldEnough = files.filter((file) => Date.now() - file.storedAt.getTime() >= minAgeMs);
  const removed: string[] = [];
  if (oldEnough.length === 0) {
    logger.info(`orphan sweep: ${files.length} banner files checked, none old enough to be an orphan`);
    return { filesChecked: files.length, removed };
  }
  const [live, trashed] = await Promise.all([BlogModel.distinct('banner.key'), TrashedBlogModel.distinct('bannerKey')]);
  const named = new Set([...live, ...trashed].map(String));
  const gone = new Set<string>();
  for (const file of oldEnough) {
    // a variant file lives as long as its banner: removed with it, or on its own when the banner is gone
    const banner = file.of ?? file.key;
    if (gone.has(banner)) continue;
    // read again right before deleting: a blog saved meanwhile may name it now
    if (named.has(banner) || (await isNamed(banner))) continue;
    await storage.remove(file.key);
    if (!file.of) gone.add(file.key);
    removed.push(file.key);
    logger.warn(`orphan sweep: removed banner ${file.key} (stored ${file.storedAt.toISOString()}, named by no blog)`);
  }
  logger.info(`orphan sweep: ${files.length} banner files checked, ${removed.length} orphans removed`);
  return { filesChecked: files.length, removed };
}

/** Both, one after the other; a failure of either is logged, never thrown (for timers). */
async function runMaintenance(storage: BannerStorage, options: { minAgeMs: number; logger: Logger }): Promise<void> {
  const { logger } = options;
  try {
    await reconcileCounters(logger);
  } catch (error) {
    logger.warn('reconciliation failed; the next run tries again', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  try {
    await sweepOrphanBanners(storage, options);
  } catch (error) {
    logger.warn('orphan sweep failed; the next run tries again', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

export interface ReconciliationServiceDeps {
  storage: BannerStorage;
  logger: Logger;
  /** Banner files younger than this are never swept (an hour, from the configuration). */
  orphanMinAgeMs: number;
}

export function createReconciliationService({ storage, logger, orphanMinAgeMs }: ReconciliationServiceDeps) {
  return {
    reconcileCounters: () => reconcileCounters(logger),
    /** `minAgeMs` overrides the configured age (a test or an operator sweeping at once). */
    sweepOrphanBanners: (minAgeMs = orphanMinAgeMs) => sweepOrphanBanners(storage, { minAgeMs, logger }),
    runMaintenance: () => runMaintenance(storage, { minAgeMs: orphanMinAgeMs, logger }),
  };
}

export type ReconciliationService = ReturnType<typeof createReconciliationService>;
