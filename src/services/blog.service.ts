/**
 * Blog posts: listing and reading as each viewer may, and creating, updating and deleting them together
 * with their banner files. Without multi-document transactions, every step that writes two things
 * (a file and a record, a record and a counter) is ordered so that a failure half-way leaves nothing
 * pointing at something missing: files are stored before the record that names them, and removed after it.
 */
import { randomBytes } from 'node:crypto';
import type { Types } from 'mongoose';
import { NotFound, RequestValidationError } from '../errors/http-errors';
import { queryFingerprint, type CursorCodec } from '../lib/list-cursor';
import type { Logger } from '../lib/logger';
import { duplicateKeyField } from '../lib/mongo-errors';
import {
  BLOG_CARD_FIELDS,
  BLOG_VIEW_FIELDS,
  BlogModel,
  blogCardView,
  blogView,
  type BlogDocument,
  type BlogStatus,
} from '../models/blog.model';
import { cardOf } from '../lib/plain-text';
import { CommentModel } from '../models/comment.model';
import { LikeModel } from '../models/like.model';
import { USER_VIEW_FIELDS, UserModel, userView } from '../models/user.model';
import type { BannerImage } from './banner-image';
import { slugBaseFromTitle } from './blog-content';
import type { BannerStorage, StoredFile } from './storage';
import type { AccountService } from './account.service';
import { authorView, canReadDrafts, visibleTo, type Viewer } from './viewer';
import { buildBlogListQuery, sortValueOf, withKeyset, type BlogFilter, type BlogListFilters } from './blog-list-query';

import type { BlogCardView, BlogFields, BlogView, TagCountView } from '../schemas/blog';

export type { BlogStatus } from '../models/blog.model';

const SLUG_ATTEMPTS = 8;

/** A banner that passed inspection, with the bytes to store and the URL base to store it under. */
export interface BannerInput {
  data: Buffer;
  image: BannerImage;
  baseUrl: string;
}

/**
 * The fields of src/schemas/blog.ts's forms, stored as they are (`content` is HTML, already sanitized by
 * the validators: see sanitizeBlogContent in services/blog-content.ts), with the banner to store.
 */
export type NewBlog = BlogFields & { status: BlogStatus; banner: BannerInput };

export type BlogChanges = Partial<BlogFields> & {
  banner?: BannerInput;
  /** Derive a new slug from the (new) title; by default a slug never changes, so links keep working. */
  regenerateSlug?: boolean;
};

export interface BlogPage {
  /** null only when the query asked not to count (`count=false`). */
  total: number | null;
  blogs: BlogView[] | BlogCardView[];
  /** The cursor of the page after this one; null on the last page. */
  nextCursor: string | null;
}

/** What a list asks for beyond its page: filters and order, a cursor, cards instead of whole blogs, a count or not. */
export interface BlogListQuery extends BlogListFilters {
  limit: number;
  offset: number;
  card?: boolean;
  cursor?: string;
  /** false skips counting: total is null. */
  count?: boolean;
}

/**
 * The excerpt and reading time to store with a blog's content: an excerpt the admin sent is kept (until
 * an empty one hands it back to the content); otherwise it follows the content.
 */
function cardFields(content: string, excerpt: string | undefined, customExcerpt: boolean) {
  const card = cardOf(content);
  if (excerpt) return { ...card, excerpt, customExcerpt: true };
  if (excerpt === undefined && customExcerpt) return { readingTime: card.readingTime };
  return { ...card, customExcerpt: false };
}

interface BlogServiceDeps {
  storage: BannerStorage;
  /** Signs and checks the lists' cursors (lib/list-cursor.ts). */
  cursors: CursorCodec;
  logger: Logger;
  /** The after-write check of the author's account. */
  accounts: Pick<AccountService, 'assertAccountActive'>;
}

export function createBlogService({ storage, cursors, logger, accounts }: BlogServiceDeps) {
  async function storeBanner({
    data,
    image,
    baseUrl,
  }: BannerInput): Promise<StoredFile & { width: number; height: number }> {
    const stored = await storage.save({ data, extension: image.extension, mimeType: image.mimeType, baseUrl });
    return { ...stored, width: image.width, height: image.height };
  }

  /** Deletes a file whose record is already gone or never came to be; a failure only leaves an orphan file, so it is logged. */
  async function discardBanner(key: string): Promise<void> {
    try {
      await storage.remove(key);
    } catch (error) {
      logger.error('could not delete a banner file; it is orphaned', {
        key,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /**
   * Saves with the slug derived from the title, or with a random suffix when another blog holds it.
   * The unique index decides races between two blogs with one title.
   */
  async function saveWithUniqueSlug(blog: BlogDocument, title: string): Promise<void> {
    const base = slugBaseFromTitle(title);
    for (let attempt = 0; ; attempt++) {
      blog.slug = attempt === 0 ? base : `${base}-${randomBytes(3).toString('hex')}`;
      try {
        await blog.save();
        return;
      } catch (error) {
        if (duplicateKeyField(error) !== 'slug' || attempt + 1 >= SLUG_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Blogs as the viewer sees them, from lean reads (or toObject() of a document): the authors and whether
   * the viewer liked each come from one batched query each, run side by side, and every blog is shaped
   * in one pass (each author only once per page).
   */
  async function present(blogs: Record<string, unknown>[], viewer: Viewer): Promise<BlogView[]>;
  async function present(
    blogs: Record<string, unknown>[],
    viewer: Viewer,
    card: boolean,
  ): Promise<BlogView[] | BlogCardView[]>;
  async function present(blogs: Record<string, unknown>[], viewer: Viewer, card = false) {
    if (blogs.length === 0) return [];
    const blogIds = blogs.map((blog) => blog._id);
    const authorIds = [...new Set(blogs.filter((blog) => blog.author != null).map((blog) => String(blog.author)))];
    const [authors, likes] = await Promise.all([
      UserModel.find({ _id: { $in: authorIds } }, USER_VIEW_FIELDS).lean(),
      LikeModel.find({ user: viewer._id, blog: { $in: blogIds } }, 'blog').lean(),
    ]);
    const authorViews = new Map(authors.map((author) => [String(author._id), authorView(userView(author), viewer)]));
    const liked = new Set(likes.map((like) => String(like.blog)));
    const shape = card ? blogCardView : blogView;
    return blogs.map((blog) => shape(blog, authorViews.get(String(blog.author)) ?? null, liked.has(String(blog._id))));
  }

  /**
   * A page of blogs in the asked order: one more than the page is read to know whether a next page
   * exists, and its cursor names the page's last blog and the query (filter and order) it belongs to.
   * `extra` is a further filter fragment (a search's) merged into the query and its cursors.
   */
  async function listBlogs(viewer: Viewer, page: BlogListQuery, extra: BlogFilter = {}): Promise<BlogPage> {
    const plan = buildBlogListQuery(viewer, page, extra);
    const fingerprint = queryFingerprint([plan.filter, plan.sort]);
    const position = page.cursor === undefined ? null : cursors.decode(page.cursor, fingerprint);
    if (page.cursor !== undefined && !position)
      throw RequestValidationError.forField(
        'cursor',
        'Cursor is not one this API gave for this query (same sort and filters)',
        'query',
      );
    const [total, found] = await Promise.all([
      page.count === false ? null : BlogModel.countDocuments(plan.filter),
      BlogModel.find(withKeyset(plan, position), page.card ? BLOG_CARD_FIELDS : BLOG_VIEW_FIELDS)
        .sort(plan.sort)
        .skip(page.offset)
        .limit(page.limit + 1)
        .lean(),
    ]);
    const blogs = found.slice(0, page.limit);
    const last = found.length > page.limit ? blogs[blogs.length - 1] : undefined;
    const nextCursor = last
      ? cursors.encode(fingerprint, { value: sortValueOf(plan, last), id: String(last._id) })
      : null;
    return { total, blogs: await present(blogs, viewer, page.card ?? false), nextCursor };
  }

  /** Tags with how many blogs the viewer may see carry each, most used first (then by name, so pages are stable). */
  async function listTags(viewer: Viewer, page: { limit: number; offset: number }) {
    const carried = [{ $match: { ...visibleTo(viewer), 'tags.0': { $exists: true } } }, { $unwind: '$tags' }];
    const [counted, tags] = await Promise.all([
      BlogModel.aggregate<{ total: number }>([...carried, { $group: { _id: '$tags' } }, { $count: 'total' }]),
      BlogModel.aggregate<TagCountView>([
        ...carried,
        { $group: { _id: '$tags', count: { $sum: 1 } } },
        { $sort: { count: -1, _id: 1 } },
        { $skip: page.offset },
        { $limit: page.limit },
        { $project: { _id: 0, name: '$_id', count: 1 } },
      ]),
    ]);
    return { total: counted[0]?.total ?? 0, tags: tags.map(({ name, count }) => ({ name, count })) };
  }

  /**
   * A blog by slug; each read of a published blog counts one view, atomically. Drafts only for those who may
   * read them (a draft costs those readers one more query: counting views must not touch drafts).
   */
  async function readBlogBySlug(slug: string, viewer: Viewer): Promise<BlogView> {
    let blog: Record<string, unknown> | null = await BlogModel.findOneAndUpdate(
      { slug, status: 'published' },
      { $inc: { viewsCount: 1 } },
      { new: true, timestamps: false, projection: BLOG_VIEW_FIELDS },
    ).lean();
    if (!blog && canReadDrafts(viewer)) blog = await BlogModel.findOne({ slug }, BLOG_VIEW_FIELDS).lean();
    if (!blog) throw new NotFound('Blog not found');
    return (await present([blog], viewer))[0];
  }

  async function createBlog(
    author: Viewer,
    { banner: bannerInput, excerpt, tags = [], ...fields }: NewBlog,
  ): Promise<BlogView> {
    const banner = await storeBanner(bannerInput);
    const blog = new BlogModel({
      ...fields,
      ...cardFields(fields.content, excerpt, false),
      tags,
      publishedAt: fields.status === 'published' ? new Date() : null,
      author: author._id,
      banner,
    });
    try {
      await saveWithUniqueSlug(blog, fields.title);
    } catch (error) {
      await discardBanner(banner.key);
      throw error;
    }
    await accounts.assertAccountActive(author._id, () => deleteBlog(blog._id));
    return (await present([blog.toObject()], author))[0];
  }

  async function updateBlog(blogId: string, changes: BlogChanges, viewer: Viewer): Promise<BlogView> {
    const blog = await BlogModel.findById(blogId);
    if (!blog) throw new NotFound('Blog not found');
    const { banner, regenerateSlug, excerpt, ...fields } = changes;
    for (const [field, value] of Object.entries(fields)) if (value !== undefined) blog.set(field, value);
    if (fields.content !== undefined || excerpt !== undefined)
      blog.set(cardFields(blog.content, excerpt, blog.customExcerpt ?? false));
    if (fields.status === 'published' && !blog.publishedAt) blog.publishedAt = new Date();
    const oldBannerKey = blog.banner?.key;
    const newBanner = banner && (await storeBanner(banner));
    if (newBanner) blog.banner = newBanner;
    try {
      // Only modified paths are written, so counters changed meanwhile by likes and views are kept.
      if (regenerateSlug) await saveWithUniqueSlug(blog, blog.title);
      else await blog.save();
    } catch (error) {
      if (newBanner) await discardBanner(newBanner.key);
      throw error;
    }
    if (newBanner && oldBannerKey) await discardBanner(oldBannerKey);
    return (await present([blog.toObject()], viewer))[0];
  }

  /** Removes the blog first (it disappears at once), then what hangs off it: comments, likes, the banner file. */
  async function deleteBlog(blogId: Types.ObjectId | string): Promise<void> {
    const blog = await BlogModel.findOneAndDelete({ _id: blogId });
    if (!blog) throw new NotFound('Blog not found');
    await Promise.all([CommentModel.deleteMany({ blog: blog._id }), LikeModel.deleteMany({ blog: blog._id })]);
    if (blog.banner?.key) await discardBanner(blog.banner.key);
  }

  /** Account deletion: every blog the user wrote goes, with its comments, likes and banner. */
  async function deleteBlogsOfAuthor(authorId: Types.ObjectId): Promise<void> {
    const blogs = await BlogModel.find({ author: authorId }).select('_id');
    for (const blog of blogs) {
      await deleteBlog(blog._id).catch((error: unknown) => {
        // deleted meanwhile by someone else: nothing left to do
        if (!(error instanceof NotFound)) throw error;
      });
    }
  }

  /** The blog a viewer may act on (like, comment): drafts are hidden from those who may not read them. */
  async function findVisibleBlog(blogId: string, viewer: Viewer): Promise<BlogDocument> {
    // only its id is needed to act on it: the content stays in the database
    const blog = await BlogModel.findOne({ _id: blogId, ...visibleTo(viewer) }, '_id');
    if (!blog) throw new NotFound('Blog not found');
    return blog;
  }

  return {
    listBlogs,
    listTags,
    readBlogBySlug,
    createBlog,
    updateBlog,
    deleteBlog,
    deleteBlogsOfAuthor,
    findVisibleBlog,
  };
}

export type BlogService = ReturnType<typeof createBlogService>;
