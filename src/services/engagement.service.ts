/**
 * Likes and comments, and the blog counters that follow them. Each counter moves by an atomic `$inc`
 * right after the insert or delete of the record it counts, and only when that insert or delete
 * really happened, so `likesCount` and `commentsCount` stay equal to the records under concurrency.
 * When the database fails between the two (or leaves the first's outcome unknown), the blog is named to
 * the counter repair (counter-repair.ts), which recounts it once the database answers again.
 */
import type { Types } from 'mongoose';
import { ignoreEvents, type DomainEvent, type EventName, type EventRecorder } from './events';
import { BadRequest, HttpError, NotFound } from '../errors/http-errors';
import { isDuplicateKeyError } from '../lib/mongo-errors';
import { incrementBlogCounter } from '../models/blog.model';
import { CommentModel, type CommentDocument } from '../models/comment.model';
import { LikeModel } from '../models/like.model';
import type { AccountService } from './account.service';
import type { CounterRepair } from './counter-repair';
import type { BlogService } from './blog.service';
import type { CommentView, ModeratedCommentView } from '../schemas/comment';
import { authorView, type Viewer } from './viewer';

interface BlogSummary {
  _id: Types.ObjectId;
  title: string;
  slug: string;
}

interface EngagementServiceDeps {
  blogs: Pick<BlogService, 'findVisibleBlog'>;
  accounts: Pick<AccountService, 'assertAccountActive'>;
  /** Told of each blog whose counters a failed write may have left off; none by default. */
  counterRepair?: Pick<CounterRepair, 'suspect'>;
  /** Where comments' creation and deletion are recorded for webhooks. */
  events?: EventRecorder;
}

/** A comment's event; its id carries the comment's id, which occurs once per creation and deletion. */
function commentEvent(
  name: EventName,
  comment: Pick<CommentDocument, '_id' | 'blog' | 'createdAt'>,
  payload: unknown,
): DomainEvent {
  const at = name === 'comment.created' ? (comment.createdAt ?? new Date()) : new Date();
  return { id: `${name}:${String(comment._id)}`, name, blogId: String(comment.blog), payload, occurredAt: at };
}

export function createEngagementService({
  blogs,
  accounts,
  counterRepair,
  events = ignoreEvents,
}: EngagementServiceDeps) {
  /**
   * Runs the writes of a record and its counter. A failure that is not an answer of the API (a 400, a 404)
   * may have come between them, or after a write that was applied: the blog's counters are checked again.
   */
  async function countedWrite<T>(blogId: Types.ObjectId, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof HttpError)) counterRepair?.suspect(blogId);
      throw error;
    }
  }

  /** Returns the new likes count. Liking twice is a 400: the unique index, not a prior read, decides. */
  async function likeBlog(blogId: string, viewer: Viewer): Promise<number> {
    const blog = await blogs.findVisibleBlog(blogId, viewer);
    return countedWrite(blog._id, async () => {
      try {
        await LikeModel.create({ blog: blog._id, user: viewer._id });
      } catch (error) {
        if (isDuplicateKeyError(error)) throw new BadRequest('You have already liked this blog');
        throw error;
      }
      const counted = await incrementBlogCounter(blog._id, 'likesCount', 1);
      if (!counted) {
        // the blog was deleted between the check and the like: take the like back
        await LikeModel.deleteOne({ blog: blog._id, user: viewer._id });
        throw new NotFound('Blog not found');
      }
      await accounts.assertAccountActive(viewer._id, () => removeLike(blog._id, viewer._id));
      return counted.likesCount;
    });
  }

  /** Deletes a like and lowers the count, only if this call is the one that deleted it. */
  function removeLike(blogId: Types.ObjectId, userId: Types.ObjectId): Promise<boolean> {
    return countedWrite(blogId, async () => {
      const { deletedCount } = await LikeModel.deleteOne({ blog: blogId, user: userId });
      if (deletedCount) await incrementBlogCounter(blogId, 'likesCount', -1);
      return deletedCount > 0;
    });
  }

  /** Unliking a blog the viewer has not liked is a 400, the mirror of liking twice. */
  async function unlikeBlog(blogId: string, viewer: Viewer): Promise<void> {
    const blog = await blogs.findVisibleBlog(blogId, viewer);
    if (!(await removeLike(blog._id, viewer._id))) throw new BadRequest('You have not liked this blog');
  }

  function presentComment(comment: CommentDocument, viewer: Viewer): CommentView {
    // the model's toJSON gives the view of src/schemas/comment.ts (models/comment.model.ts)
    const json = comment.toJSON() as unknown as CommentView;
    return { ...json, author: authorView(json.author, viewer) };
  }

  async function addComment(blogId: string, viewer: Viewer, content: string): Promise<CommentView> {
    const blog = await blogs.findVisibleBlog(blogId, viewer);
    const comment = await countedWrite(blog._id, async () => {
      const created = await CommentModel.create({ blog: blog._id, author: viewer._id, content });
      if (!(await incrementBlogCounter(blog._id, 'commentsCount', 1))) {
        // the blog was deleted between the check and the comment: take the comment back
        await CommentModel.deleteOne({ _id: created._id });
        throw new NotFound('Blog not found');
      }
      await accounts.assertAccountActive(viewer._id, () => removeComment(created));
      return created;
    });
    await comment.populate('author');
    const view = presentComment(comment, viewer);
    await events.record(commentEvent('comment.created', comment, view));
    return view;
  }

  async function listComments(
    blogId: string,
    viewer: Viewer,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; comments: CommentView[] }> {
    const blog = await blogs.findVisibleBlog(blogId, viewer);
    const [total, comments] = await Promise.all([
      CommentModel.countDocuments({ blog: blog._id }),
      CommentModel.find({ blog: blog._id })
        .sort({ createdAt: -1, _id: -1 })
        .skip(page.offset)
        .limit(page.limit)
        .populate('author'),
    ]);
    return { total, comments: comments.map((comment) => presentComment(comment, viewer)) };
  }

  /** Every comment on every blog, newest first, for moderators: each with its blog's _id, title and slug. */
  async function listAllComments(
    viewer: Viewer,
    page: { limit: number; offset: number },
  ): Promise<{ total: number; comments: ModeratedCommentView[] }> {
    const [total, comments] = await Promise.all([
      CommentModel.countDocuments(),
      CommentModel.find()
        .sort({ createdAt: -1, _id: -1 })
        .skip(page.offset)
        .limit(page.limit)
        .populate('author')
        .populate<{ blog: BlogSummary | null }>({ path: 'blog', select: '_id title slug', options: { lean: true } }),
    ]);
    return {
      total,
      comments: comments.map((comment) => {
        const json = presentComment(comment as unknown as CommentDocument, viewer);
        const blog = comment.blog;
        // a blog deleted between the two reads leaves its comments for a moment: shown with blog null
        return { ...json, blog: blog && { _id: blog._id, title: blog.title, slug: blog.slug } };
      }),
    };
  }

  async function findComment(commentId: string): Promise<CommentDocument> {
    const comment = await CommentModel.findById(commentId);
    if (!comment) throw new NotFound('Comment not found');
    return comment;
  }

  async function deleteComment(comment: CommentDocument): Promise<void> {
    if (!(await removeComment(comment))) throw new NotFound('Comment not found');
    await events.record(
      commentEvent('comment.deleted', comment, { _id: String(comment._id), blog: String(comment.blog) }),
    );
  }

  /** Deletes a comment and lowers the count, only if this call is the one that deleted it. */
  function removeComment(comment: CommentDocument): Promise<boolean> {
    return countedWrite(comment.blog, async () => {
      const { deletedCount } = await CommentModel.deleteOne({ _id: comment._id });
      if (deletedCount) await incrementBlogCounter(comment.blog, 'commentsCount', -1);
      return deletedCount > 0;
    });
  }

  /** Account deletion: the user's likes and comments go, and the counters of the blogs they were on follow. */
  async function deleteEngagementOfUser(userId: Types.ObjectId): Promise<void> {
    const likes = await LikeModel.find({ user: userId }).select('blog').lean();
    for (const like of likes) await removeLike(like.blog, userId);
    const comments = await CommentModel.find({ author: userId }).select('blog createdAt').lean();
    const perBlog = new Map<string, typeof comments>();
    for (const comment of comments) {
      const ofBlog = perBlog.get(String(comment.blog));
      if (ofBlog) ofBlog.push(comment);
      else perBlog.set(String(comment.blog), [comment]);
    }
    for (const ofBlog of perBlog.values()) {
      const blog = ofBlog[0]!.blog;
      await countedWrite(blog, async () => {
        const ids = ofBlog.map((comment) => comment._id);
        const { deletedCount } = await CommentModel.deleteMany({ _id: { $in: ids }, author: userId });
        if (deletedCount) await incrementBlogCounter(blog, 'commentsCount', -deletedCount);
      });
      // as a deletion by hand says, so webhook receivers that mirror comments drop these too (an event id
      // is recorded once: one that another deletion of the same comment recorded is not repeated)
      for (const comment of ofBlog)
        await events.record(
          commentEvent('comment.deleted', comment, { _id: String(comment._id), blog: String(comment.blog) }),
        );
    }
  }

  return {
    likeBlog,
    unlikeBlog,
    addComment,
    listComments,
    listAllComments,
    findComment,
    deleteComment,
    deleteEngagementOfUser,
  };
}

export type EngagementService = ReturnType<typeof createEngagementService>;
