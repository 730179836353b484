/**
 * A blog post. Its counters (views, likes, comments) are changed only with atomic `$inc` updates,
 * next to the insert or delete of the record they count, so concurrent requests never lose one.
 */
import { Schema, model, type InferSchemaType } from 'mongoose';
import { readDeadline } from './read-deadline';
import { maxCharacters } from './text-limits';
import { cardOf, excerptOf, plainTextOf, PLAIN_TEXT_RULES, readingTimeOf } from '../lib/plain-text';
import { searchTermsOf } from '../lib/search-text';

import {
  BANNER_VARIANT_FORMATS,
  BLOG_LIMITS,
  BLOG_STATUSES,
  BlogCardSchema,
  BlogSchema,
  cardImageOf,
  type BlogCardView,
  type BlogStatus,
  type BlogView,
  type SnippetView,
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
    // the stemmed words of title and text, the title's again marked "t:" (lib/search-text.ts): what ?q=
    // matches, by index; never serialised, and left out of reads unless asked for
    searchTerms: { type: [String], default: undefined, select: false },
    // the version of the rules the three above were worked out by (lib/plain-text.ts PLAIN_TEXT_RULES)
    textRules: { type: Number, select: false },
    banner: {
      url: { type: String, required: true },
      width: { type: Number, required: true },
      height: { type: Number, required: true },
      // the storage's own name for the file, needed to delete it; never serialised
      key: { type: String, required: true },
      // the banner resized (services/banner-image.ts renderVariants); absent on blogs stored before them
      // until `npm run banners:backfill`
      variants: {
        type: [
          {
            _id: false,
            url: { type: String, required: true },
            width: { type: Number, required: true },
            height: { type: Number, required: true },
            format: { type: String, enum: BANNER_VARIANT_FORMATS, required: true },
          },
        ],
        default: undefined,
      },
    },
    // indexed with status and a sort key below: GET /blogs/user/{userId} and account deletion find blogs by author
    author: { type: Schema.Types.ObjectId, ref: 'User', required: true },
    viewsCount: { type: Number, default: 0, min: 0 },
    likesCount: { type: Number, default: 0, min: 0 },
    commentsCount: { type: Number, default: 0, min: 0 },
    status: { type: String, enum: BLOG_STATUSES, default: 'draft', required: true },
    // set the first time the blog is published, and kept when it is unpublished later
    publishedAt: { type: Date, default: null },
    // a scheduled draft's time to go live (services/publish-scheduler.ts); absent otherwise
    publishAt: { type: Date },
    // set by the scheduler's publishing update, cleared once blog.published is recorded: a crash in between re-records it
    publishEventPending: { type: Boolean },
    // preview links carry it: raising it revokes every link of this post (services/preview-links.ts)
    previewVersion: { type: Number, default: 0 },
  },
  {
    timestamps: true,
    // Every field is written whole, arrays (tags, variants) too, so the last edit wins, as for a title. A
    // version key only guards edits of an array by position, which nothing makes, and it made one of two
    // edits of a post's tags at once fail (a VersionError, answered 500).
    versionKey: false,
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
// every blog newest first without a status named: an admin's page of every post (services/blog-list-query.ts)
blogSchema.index({ createdAt: -1, _id: -1 });
// the publish scheduler's pass: due drafts, and publications whose event is not recorded yet (sparse: few have either)
blogSchema.index({ publishAt: 1 }, { sparse: true });
blogSchema.index({ publishEventPending: 1 }, { sparse: true });
// GET /blogs/?q= finds the blogs holding every term, newest first within each relevance tier (multikey
// over the terms: MongoDB scans one term's entries and checks the others on the documents it fetches)
blogSchema.index({ searchTerms: 1, status: 1, createdAt: -1, _id: -1 });

/** Fields of the view that are not stored but worked out per viewer or per search. */
const PER_VIEWER = ['likedByMe', 'snippet'];
const STORED_VIEW_KEYS = keysOf(BlogSchema).filter((key) => !PER_VIEWER.includes(key));
const BannerSchema = BlogSchema.properties.banner;

/** The fields blogView() reads: a projection for lean reads of blogs that are to be shown. */
export const BLOG_VIEW_FIELDS = STORED_VIEW_KEYS.join(' ');
/**
 * The same for cards: the card's stored fields, and the sort keys (a page's cursor names its last blog's
 * sort value); the content stays in the database.
 */
export const BLOG_CARD_FIELDS = [
  ...new Set([...keysOf(BlogCardSchema).filter((key) => !PER_VIEWER.includes(key)), ...BLOG_SORT_FIELDS]),
].join(' ');

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
 * document would have them. `author` is given already shaped for the viewer, `likedByMe` when known, and
 * a search's `snippet` (left out of the JSON otherwise).
 */
export function blogView(
  blog: Record<string, unknown>,
  author: unknown,
  likedByMe?: boolean,
  snippet?: SnippetView,
): BlogView {
  return viewOf(BlogSchema, blog, VIEW_DEFAULTS, {
    author,
    likedByMe,
    ...(snippet && { snippet }),
    ...olderFields(blog),
  });
}

/**
 * The blog as a card (`fields=card`): `author` given as a card's author, the banner as one image
 * (cardImageOf), the status only for a viewer who sees drafts (`withStatus`).
 */
export function blogCardView(
  blog: Record<string, unknown>,
  author: unknown,
  likedByMe?: boolean,
  snippet?: SnippetView,
  withStatus = true,
): BlogCardView {
  return viewOf(BlogCardSchema, blog, VIEW_DEFAULTS, {
    author,
    likedByMe,
    ...(snippet && { snippet }),
    ...olderFields(blog),
    banner: cardImageOf(blog.banner as Parameters<typeof cardImageOf>[0]),
    ...(!withStatus && { status: undefined }),
  });
}

/**
 * A blog written before tags and cards shows no tags, and (until the start-up backfill of
 * models/blog.migrations.ts reaches it) its card fields worked out on the spot when its content was read;
 * one written before banner variants shows an empty list of them.
 */
function olderFields(blog: Record<string, unknown>): Record<string, unknown> {
  const older: Record<string, unknown> = blog.tags ? {} : { tags: [] };
  // a banner stored before variants shows none (the same shape for every blog) until the backfill's turn
  const banner = blog.banner as { variants?: unknown } | undefined;
  if (banner && !banner.variants) older.banner = viewOf(BannerSchema, { ...banner, variants: [] });
  if (blog.excerpt === undefined || blog.readingTime === undefined)
    Object.assign(older, typeof blog.content === 'string' ? cardOf(blog.content) : { excerpt: '', readingTime: 1 });
  return older;
}

export type Blog = InferSchemaType<typeof blogSchema>;
blogSchema.plugin(readDeadline);
export const BlogModel = model('Blog', blogSchema);
/** A blog as the model hydrates it: without `__v`, which the schema turns off. */
export type BlogDocument = ReturnType<(typeof BlogModel)['hydrate']>;

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

/**
 * A blog's excerpt (unless the admin wrote it), reading time and search terms, worked out by the rules of
 * now from one reading of its HTML: for a blog stored under others (PLAIN_TEXT_RULES), by the start-up
 * backfill (blog.migrations.ts) and when a trashed copy is restored.
 */
export function derivedTextOf(blog: { title: string; content: string; customExcerpt?: boolean | null }) {
  const text = plainTextOf(blog.content);
  return {
    ...(blog.customExcerpt ? {} : { excerpt: excerptOf(text) }),
    readingTime: readingTimeOf(text),
    searchTerms: searchTermsOf(blog.title, text),
    textRules: PLAIN_TEXT_RULES,
  };
}
