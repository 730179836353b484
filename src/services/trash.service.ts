/**
 * The trash (docs/admin-guide.md, "Trash"). Trashing moves the blog document into `trashed_blogs`
 * (insert, then delete: no multi-document transaction, so each step is safe to repeat), so the post is
 * gone at once for every read of `blogs` (lists, slug, tags, feeds, likes, comments, previews). Its
 * comments and likes stay under its id; a restore puts the document back, recounts its counters and gives
 * it a fresh slug if its own was taken meanwhile. A purge (one, all, or by the sweep after the retention)
 * first claims the trashed copy with a conditional delete, so two instances never purge one post twice;
 * then its comments, likes and banner go. A crash after the claim leaves records the reconciliation and
 * the orphan sweep remove. A restore marks the copy first (`restoringAt`), and a purge claims only an
 * unmarked copy: of a restore and a purge at once, one wins whole, never a post back without its banner.
 */
import { randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import { BadRequest, NotFound, ServiceUnavailable } from '../errors/http-errors';
import type { Logger } from '../lib/logger';
import { duplicateKeyField, isDuplicateKeyError } from '../lib/mongo-errors';
import { PLAIN_TEXT_RULES } from '../lib/plain-text';
import { BlogModel, derivedTextOf } from '../models/blog.model';
import { CommentModel } from '../models/comment.model';
import { LikeModel } from '../models/like.model';
import { TrashedBlogModel } from '../models/trashed-blog.model';
import type { BlogView } from '../schemas/blog';
import type { TrashedBlogView } from '../schemas/trash';
import type { BlogService } from './blog.service';
import { ignoreEvents, type EventRecorder } from './events';
import type { Page } from './pagination';
import { discardBanner, type BannerStorage } from './storage';
import type { Viewer } from './viewer';

/** Tries at trashing a post that is being edited meanwhile, each copying it again. */
const TRASH_ATTEMPTS = 5;
/** Posts purged at once by the sweep or an emptying; the rest wait for the next round. */
const PURGE_BATCH = 100;
/**
 * A restore's mark older than this was left by a restore cut short (a crash): the copy may be purged
 * again. A restore's steps each have the operation deadline (10 s), so a live one is long done.
 */
const RESTORE_MARK_MS = 60_000;

export interface TrashServiceDeps {
  /** Shows restored and listed posts; absent for the maintenance runs, which only purge. */
  blogs?: Pick<BlogService, 'present'>;
  storage: BannerStorage;
  logger: Logger;
  events?: EventRecorder;
  /** TRASH_RETENTION_DAYS, in milliseconds. */
  retentionMs: number;
}

type RawBlog = Record<string, unknown> & { _id: Types.ObjectId; slug: string; status: string };

export function createTrashService({ blogs, storage, logger, events = ignoreEvents, retentionMs }: TrashServiceDeps) {
  const shown = () => {
    if (!blogs) throw new Error('this trash service only purges');
    return blogs;
  };

  /**
   * Copies the blog into the trash, then takes it out of `blogs` if it is still as copied; 404 when there
   * is no such blog. An edit that lands in between (a new banner, whose old file it deletes) is copied
   * again, so a restore never brings back a banner that is gone.
   */
  async function trash(blogId: string, by: Viewer): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      // whole, with the terms it is searched by (and their rules), which reads leave out: a restored post is found again
      const blog = (await BlogModel.findById(blogId).select('+searchTerms +textRules').lean()) as RawBlog | null;
      if (!blog) throw new NotFound('Blog not found');
      const trashedAt = new Date();
      const banner = blog.banner as { key?: string } | undefined;
      // the copy as the blog is now: one left by a restore cut short (or a retry) is replaced, never kept stale
      await TrashedBlogModel.collection.replaceOne(
        { _id: blog._id },
        { blog, author: blog.author, bannerKey: banner?.key, trashedAt, trashedBy: by._id },
        { upsert: true },
      );
      const asCopied = { _id: blog._id, updatedAt: blog.updatedAt ?? { $exists: false } };
      const { deletedCount } = await BlogModel.deleteOne(asCopied);
      if (deletedCount) return recordTrashed(blog, trashedAt);
      const edited = await BlogModel.exists({ _id: blog._id });
      if (edited && attempt < TRASH_ATTEMPTS) continue;
      // deleted for good meanwhile (a copy of ours would outlive it), or edited on every try
      await TrashedBlogModel.deleteOne({ _id: blog._id, trashedAt });
      if (edited) throw new ServiceUnavailable('The blog kept changing while it was being trashed; try again', 1);
      throw new NotFound('Blog not found');
    }
  }

  async function recordTrashed(blog: RawBlog, trashedAt: Date): Promise<void> {
    await events.record({
      id: `blog.deleted:${String(blog._id)}:${trashedAt.toISOString()}`,
      name: 'blog.deleted',
      blogId: String(blog._id),
      payload: { _id: String(blog._id), slug: blog.slug },
      occurredAt: trashedAt,
    });
  }

  /** Puts the document back as it was, under a fresh slug if another post took its own meanwhile. */
  async function putBack(blog: RawBlog): Promise<RawBlog> {
    for (;;) {
      try {
        await BlogModel.collection.insertOne(blog);
        return blog;
      } catch (error) {
        if (duplicateKeyField(error) === 'slug')
          blog = { ...blog, slug: `${blog.slug}-${randomBytes(3).toString('hex')}` };
        else if (isDuplicateKeyError(error))
          return blog; // restored already, and cut short before leaving the trash
        else throw error;
      }
    }
  }

  /** Counters as the records say: a like or comment may have landed while the post was being moved. */
  async function recount(blogId: Types.ObjectId) {
    const [likesCount, commentsCount] = await Promise.all([
      LikeModel.countDocuments({ blog: blogId }),
      CommentModel.countDocuments({ blog: blogId }),
    ]);
    await BlogModel.updateOne({ _id: blogId }, { $set: { likesCount, commentsCount } }, { timestamps: false });
  }

  async function restore(blogId: string, viewer: Viewer): Promise<BlogView> {
    // the mark keeps a purge off the copy from now on (a purge that claimed it first leaves none to mark)
    const restoringAt = new Date();
    const trashed = await TrashedBlogModel.findOneAndUpdate({ _id: blogId }, { $set: { restoringAt } }).lean();
    if (!trashed) {
      if (await BlogModel.exists({ _id: blogId })) throw new BadRequest('This blog is not in the trash');
      throw new NotFound('Blog not found');
    }
    const { publishAt, ...blog0 } = trashed.blog as RawBlog & {
      title: string;
      content: string;
      customExcerpt?: boolean;
      textRules?: number;
      publishAt?: Date;
    };
    const restored = await putBack({
      ...blog0,
      // a schedule whose time passed in the trash is dropped: a restore brings a draft back, never publishes it
      ...(publishAt && publishAt.getTime() > restoringAt.getTime() ? { publishAt } : {}),
      // a copy trashed under other rules (or before its terms were kept with it) gets its text worked out again
      ...(blog0.textRules === PLAIN_TEXT_RULES ? {} : derivedTextOf(blog0)),
      // links made before the trash stay dead: a preview ends when its post is trashed
      previewVersion: Number(blog0.previewVersion ?? 0) + 1,
    });
    await recount(restored._id);
    // this restore's copy only: one a new trashing put there meanwhile stays
    await TrashedBlogModel.deleteOne({ _id: restored._id, restoringAt });
    const blog = await BlogModel.findById(restored._id).lean();
    if (!blog) throw new NotFound('Blog not found');
    const [view] = await shown().present([blog], viewer);
    if (view!.status === 'published') {
      const at = new Date();
      await events.record({
        id: `blog.published:${String(restored._id)}:restored:${at.toISOString()}`,
        name: 'blog.published',
        blogId: String(restored._id),
        payload: view,
        occurredAt: at,
      });
    }
    return view!;
  }

  /**
   * Purges one trashed post if this call is the one that claimed it; false when none was there to claim,
   * or a restore is taking it back. A copy whose post is live again (a restore cut short after putting it
   * back) only goes itself: the post keeps its comments, likes and banner.
   */
  async function purge(blogId: Types.ObjectId | string): Promise<boolean> {
    const claimed = await TrashedBlogModel.findOneAndDelete({
      _id: blogId,
      $or: [{ restoringAt: { $exists: false } }, { restoringAt: { $lt: new Date(Date.now() - RESTORE_MARK_MS) } }],
    }).lean();
    if (!claimed) return false;
    if (claimed.restoringAt && (await BlogModel.exists({ _id: claimed._id }))) return true;
    await Promise.all([CommentModel.deleteMany({ blog: claimed._id }), LikeModel.deleteMany({ blog: claimed._id })]);
    if (claimed.bannerKey) await discardBanner(storage, logger, claimed.bannerKey);
    return true;
  }

  /** Purges in batches every trashed post `filter` finds; answers how many this instance purged. */
  async function purgeAll(filter: Record<string, unknown>): Promise<number> {
    let purged = 0;
    for (;;) {
      const batch = await TrashedBlogModel.find(filter, '_id').limit(PURGE_BATCH).lean();
      for (const { _id } of batch) if (await purge(_id)) purged += 1;
      if (batch.length < PURGE_BATCH) return purged;
    }
  }

  return {
    trash,
    restore,

    async list(viewer: Viewer, page: Page): Promise<{ total: number; blogs: TrashedBlogView[] }> {
      const [total, trashed] = await Promise.all([
        TrashedBlogModel.countDocuments(),
        TrashedBlogModel.find().sort({ trashedAt: -1, _id: -1 }).skip(page.offset).limit(page.limit).lean(),
      ]);
      const cards = await shown().present(
        trashed.map(({ blog }) => blog as Record<string, unknown>),
        viewer,
        true,
      );
      return {
        total,
        blogs: cards.map((card, index) => ({
          ...card,
          trashedAt: trashed[index]!.trashedAt,
          trashedBy: trashed[index]!.trashedBy,
        })) as TrashedBlogView[],
      };
    },

    async purgeOne(blogId: string): Promise<void> {
      if (!(await purge(blogId))) throw new NotFound('Blog not found');
    },

    empty: () => purgeAll({}),

    /** The sweep's part: what was trashed longer ago than the retention. Never throws. */
    async purgeExpired(now = new Date()): Promise<number> {
      try {
        const purged = await purgeAll({ trashedAt: { $lt: new Date(now.getTime() - retentionMs) } });
        logger.info(`trash: ${purged} posts past the retention purged`);
        return purged;
      } catch (error) {
        logger.warn('trash purge failed; the next run tries again', {
          error: error instanceof Error ? error.message : String(error),
        });
        return 0;
      }
    },

    /** Account deletion: the user's trashed posts go for good too. */
    deleteTrashOfAuthor: (authorId: Types.ObjectId) => purgeAll({ author: authorId }).then(() => undefined),
  };
}

export type TrashService = ReturnType<typeof createTrashService>;
