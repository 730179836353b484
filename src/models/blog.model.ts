/**
 * A blog post. Its counters (views, likes, comments) are changed only with atomic `$inc` updates,
 * next to the insert or delete of the record they count, so concurrent requests never lose one.
 */
import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { maxCharacters } from './text-limits';

import { BLOG_LIMITS, BLOG_STATUSES, type BlogStatus } from '../schemas/blog';

export { BLOG_LIMITS, BLOG_STATUSES, type BlogStatus };

const blogSchema = new Schema(
  {
    title: { type: String, required: true, validate: maxCharacters(BLOG_LIMITS.title), trim: true },
    // unique: GET /blogs/{slug} reads by it, and two blogs may never share one
    slug: { type: String, required: true, unique: true },
    content: { type: String, required: true },
    banner: {
      url: { type: String, required: true },
      width: { type: Number, required: true },
      height: { type: Number, required: true },
      // the storage's own name for the file, needed to delete it; never serialised
      key: { type: String, required: true },
    },
    // index: GET /blogs/user/{userId} and account deletion find blogs by author
    author: { type: Schema.Types.ObjectId, ref: 'User', required: true, index: true },
    viewsCount: { type: Number, default: 0, min: 0 },
    likesCount: { type: Number, default: 0, min: 0 },
    commentsCount: { type: Number, default: 0, min: 0 },
    status: { type: String, enum: BLOG_STATUSES, default: 'draft', required: true },
    // set the first time the blog is published, and kept when it is unpublished later
    publishedAt: { type: Date, default: null },
  },
  {
    timestamps: true,
    toJSON: {
      transform: (_document, result: Record<string, unknown>) => blogView(result, result.author ?? null),
    },
  },
);

// GET /blogs/ lists newest first, per status for regular users
blogSchema.index({ status: 1, createdAt: -1, _id: -1 });
// GET /blogs/ lists every blog newest first for admins (no status filter to lead with)
blogSchema.index({ createdAt: -1, _id: -1 });
// GET /blogs/user/{userId} lists one author's blogs newest first (admins)
blogSchema.index({ author: 1, createdAt: -1, _id: -1 });
// GET /blogs/user/{userId} lists one author's published blogs newest first (regular users)
blogSchema.index({ author: 1, status: 1, createdAt: -1, _id: -1 });

/** The fields blogView() reads: a projection for lean reads of blogs that are to be shown. */
export const BLOG_VIEW_FIELDS =
  '_id title slug content banner author viewsCount likesCount commentsCount status publishedAt createdAt updatedAt';

/**
 * A blog as the API shows it, from a document's toJSON result or a lean read alike: a fixed field order,
 * the banner's storage key and __v left inside, defaults filled in as a hydrated document would have them.
 * `author` is given already shaped for the viewer.
 */
export function blogView(blog: Record<string, unknown>, author: unknown): Record<string, unknown> {
  const banner = blog.banner as { url: string; width: number; height: number };
  return {
    _id: blog._id,
    title: blog.title,
    slug: blog.slug,
    content: blog.content,
    banner: { url: banner.url, width: banner.width, height: banner.height },
    author,
    viewsCount: blog.viewsCount ?? 0,
    likesCount: blog.likesCount ?? 0,
    commentsCount: blog.commentsCount ?? 0,
    status: blog.status ?? 'draft',
    publishedAt: blog.publishedAt ?? null,
    createdAt: blog.createdAt,
    updatedAt: blog.updatedAt,
  };
}

export type Blog = InferSchemaType<typeof blogSchema>;
export type BlogDocument = HydratedDocument<Blog>;
export const BlogModel = model('Blog', blogSchema);

export type BlogCounter = 'viewsCount' | 'likesCount' | 'commentsCount';

/**
 * Moves one counter of a blog atomically and answers the blog's new counters (null when the blog is gone).
 * Counting is not editing: `updatedAt` stays as the last edit left it.
 */
export function incrementBlogCounter(blogId: unknown, counter: BlogCounter, by: number) {
  return BlogModel.findOneAndUpdate(
    { _id: blogId },
    { $inc: { [counter]: by } },
    { new: true, timestamps: false, projection: { [counter]: 1 } },
  );
}
