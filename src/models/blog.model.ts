/**
 * A blog post. Its counters (views, likes, comments) are changed only with atomic `$inc` updates,
 * next to the insert or delete of the record they count, so concurrent requests never lose one.
 */
import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { maxCharacters } from './text-limits';
import { cardOf } from '../lib/plain-text';

import {
  BLOG_LIMITS,
  BLOG_STATUSES,
  BlogCardSchema,
  BlogSchema,
  type BlogCardView,
  type BlogStatus,
  type BlogView,
} from '../schemas/blog';
import { keysOf, viewOf } from '../schemas/common';

export { BLOG_LIMITS, BLOG_STATUSES, type BlogStatus };

const blogSchema = new Schema(
  {
    title: { type: String, required: true, validate: maxCharacters(BLOG_LIMITS.title), trim: true },
    // unique: GET /blogs/{slug} reads by it, and two blogs may never share one
    slug: { type: String, required: true, unique: true },
    content: { type: String, required: true },
    // the card's fields, worked out from the content when it is written (lib/plain-text.ts)
    excerpt: { type: String, validate: maxCharacters(BLOG_LIMITS.excerpt) },
    readingTime: { type: Number, min: 1 },
    // whether the excerpt is the admin's own, kept when the content changes; never serialised
    customExcerpt: { type: Boolean, default: false },
    // normalised by the forms (schemas/blog.ts normaliseTag)
    tags: { type: [String], default: undefined },
    banner: {
      url: { type: String, required: true },
      width: { type: Number, required: true },
      height: { type: Number, required: true },
      // the storage's own name for the file, needed to delete it; never serialised
      key: { type: String, required: true },
    },
    // indexed with status and a sort key below: GET /blogs/user/{userId} and account deletion find blogs by author
    author: { type: Schema.Types.ObjectId, ref: 'User', required: true },
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

/**
 * The lists' indexes (services/blog-list-query.ts; docs/performance.md): every list filters on status
 * (one value, or both for admins, which MongoDB serves as a merge of two ranges), optionally on one tag
 * or one author first, and is ordered by one sort key then _id (either direction: an index is read
 * both ways). Publication-date bounds are ranges on publishedAt, or a filter on the index read. The feeds
 * read the publishedAt ones.
 */
export const BLOG_SORT_FIELDS = ['createdAt', 'publishedAt', 'likesCount', 'viewsCount'] as const;
for (const field of BLOG_SORT_FIELDS) {
  blogSchema.index({ status: 1, [field]: -1, _id: -1 });
  // multikey over tags: a tag's posts
  blogSchema.index({ tags: 1, status: 1, [field]: -1, _id: -1 });
  // one author's posts: GET /blogs/user/{userId} and `author=`; account deletion finds blogs by author too
  blogSchema.index({ author: 1, status: 1, [field]: -1, _id: -1 });
}
// every blog newest first without a status named (the bench floor's admin list, admin tools)
blogSchema.index({ createdAt: -1, _id: -1 });

/** Fields of the view that are not stored but worked out per viewer. */
const PER_VIEWER = ['likedByMe'];
const STORED_VIEW_KEYS = keysOf(BlogSchema).filter((key) => !PER_VIEWER.includes(key));

/** The fields blogView() reads: a projection for lean reads of blogs that are to be shown. */
export const BLOG_VIEW_FIELDS = STORED_VIEW_KEYS.join(' ');
/** The same for cards: the content stays in the database. */
export const BLOG_CARD_FIELDS = STORED_VIEW_KEYS.filter((key) => key !== 'content').join(' ');

/** What a hydrated document would have for fields a lean read of an older record may lack (the schema's defaults). */
const VIEW_DEFAULTS = Object.fromEntries(
  STORED_VIEW_KEYS.map((key) => [
    key,
    (blogSchema.path(key) as { defaultValue?: unknown } | undefined)?.defaultValue,
  ]).filter(([, value]) => value !== undefined && typeof value !== 'function'),
);

/**
 * A blog as the API shows it (src/schemas/blog.ts), from a document's toJSON result or a lean read alike:
 * the view's field order, the banner's storage key and __v left inside, defaults filled in as a hydrated
 * document would have them. `author` is given already shaped for the viewer, and `likedByMe` when known.
 */
export function blogView(blog: Record<string, unknown>, author: unknown, likedByMe?: boolean): BlogView {
  return viewOf(BlogSchema, blog, VIEW_DEFAULTS, { author, likedByMe, ...olderFields(blog) });
}

/** The same without `content`, for `fields=card`. */
export function blogCardView(blog: Record<string, unknown>, author: unknown, likedByMe?: boolean): BlogCardView {
  return viewOf(BlogCardSchema, blog, VIEW_DEFAULTS, { author, likedByMe, ...olderFields(blog) });
}

/**
 * A blog written before tags and cards shows no tags, and (until the start-up backfill of
 * models/blog.migrations.ts reaches it) its card fields worked out on the spot when its content was read.
 */
function olderFields(blog: Record<string, unknown>): Record<string, unknown> {
  const older: Record<string, unknown> = blog.tags ? {} : { tags: [] };
  if (blog.excerpt === undefined || blog.readingTime === undefined)
    Object.assign(older, typeof blog.content === 'string' ? cardOf(blog.content) : { excerpt: '', readingTime: 1 });
  return older;
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
