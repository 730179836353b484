/**
 * Blog posts: listing and reading as each viewer may, and creating, updating and deleting them together
 * with their banner files. Without multi-document transactions, every step that writes two things
 * (a file and a record, a record and a counter) is ordered so that a failure half-way leaves nothing
 * pointing at something missing: files are stored before the record that names them, and removed after it.
 */
import { randomBytes } from 'node:crypto';
import { ignoreEvents, type DomainEvent, type EventName, type EventRecorder } from './events';
import mongoose, { type Types } from 'mongoose';
import { BadRequest, NotFound, RequestValidationError } from '../errors/http-errors';
import { queryFingerprint, type CursorCodec, type CursorPosition } from '../lib/list-cursor';
import type { Logger } from '../lib/logger';
import type { UserCache } from '../lib/user-cache';
import { ANONYMOUS_VIEWER } from '../lib/request-locals';
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
import { cardOf, plainTextOf, PLAIN_TEXT_RULES } from '../lib/plain-text';
import { searchTermsOf } from '../lib/search-text';
import { CommentModel } from '../models/comment.model';
import { LikeModel } from '../models/like.model';
import { USER_VIEW_FIELDS, UserModel, authorCardView, userView } from '../models/user.model';
import { countDirect, distinctIds, findDirect, incrementDirect, projectionOf } from '../models/direct-read';
import type { BannerImage } from './banner-image';
import { slugBaseFromTitle } from './blog-content';
import { discardBanner as discardStoredBanner, type BannerStorage } from './storage';
import type { AccountService } from './account.service';
import { authorView, canReadDrafts, visibleTo, type Viewer } from './viewer';
import { blogSearchOf, blogSnippet, type BlogSearch } from './blog-search';
import { buildBlogListQuery, sortValueOf, withKeyset, type BlogFilter, type BlogListFilters } from './blog-list-query';

import type { BlogCardView, BlogFields, BlogView, SnippetView, TagCountView } from '../schemas/blog';

export type { BlogStatus } from '../models/blog.model';

const SLUG_ATTEMPTS = 8;
/** A cursor this API did not sign, or signed for another query (its length is bounded by the validators). */
const foreignCursor = (cursor: string) =>
  RequestValidationError.forField(
    'cursor',
    'Cursor is not one this API gave for this query (same sort and filters)',
    'query',
    cursor,
  );
const ALREADY_PUBLISHED =
  'The post is published: publishAt schedules a draft (send status=draft with it to take the post down until then)';
/** A search's relevance tier: 0, the blogs whose title holds every word; 1, the others. */
type Tier = 0 | 1;

/** The projections of the hot reads, which go straight to the driver (models/direct-read.ts). */
const VIEW = projectionOf(BLOG_VIEW_FIELDS);
const CARD = projectionOf(BLOG_CARD_FIELDS);
/** A search's cards: the content is read for the snippets, then left out of the card. */
const CARD_WITH_CONTENT = projectionOf(`${BLOG_CARD_FIELDS} content`);
const USER_VIEW = projectionOf(USER_VIEW_FIELDS);
const LIKED_BLOG = projectionOf('blog');

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

/** What a list asks for beyond its page: filters and order, a search, a cursor, cards, a count or not. */
export interface BlogListQuery extends BlogListFilters {
  limit: number;
  offset: number;
  /** Words to search for (validated to hold at least one that is not a stop word). */
  q?: string;
  card?: boolean;
  cursor?: string;
  /** false skips counting: total is null. */
  count?: boolean;
}

/** The terms a blog with this title and (sanitized) content is found by. */
const searchFieldsOf = (title: string, content: string) => ({
  searchTerms: searchTermsOf(title, plainTextOf(content)),
});

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

/** A schedule only keeps a draft waiting (the form refuses one beside status=published); an empty value is no schedule. */
function scheduleOf(status: BlogStatus, publishAt: string | undefined) {
  return status === 'draft' && publishAt ? { publishAt: new Date(publishAt) } : {};
}

interface BlogServiceDeps {
  storage: BannerStorage;
  /** Signs and checks the lists' cursors (lib/list-cursor.ts). */
  cursors: CursorCodec;
  logger: Logger;
  /** The after-write check of the author's account. */
  accounts: Pick<AccountService, 'assertAccountActive'>;
  /** Where publications, updates and deletions are recorded for webhooks. */
  events?: EventRecorder;
  /** The authors read lately (AUTH_CACHE_TTL_MS, voided by announced changes); without it every page reads them. */
  authors?: UserCache<Record<string, unknown>>;
}

/** The event a blog's write makes: ids carry the write's time, so recording one write twice is a no-op. */
function blogEvent(name: EventName, blogId: string, at: Date, payload: unknown): DomainEvent {
  return { id: `${name}:${blogId}:${at.toISOString()}`, name, blogId, payload, occurredAt: at };
}

/** What an update announces: a publication, an unpublication, or a plain update. */
function updateEventName(before: string, after: string): EventName {
  if (before !== 'published' && after === 'published') return 'blog.published';
  if (before === 'published' && after !== 'published') return 'blog.unpublished';
  return 'blog.updated';
}

export function createBlogService({
  storage,
  cursors,
  logger,
  accounts,
  events = ignoreEvents,
  authors,
}: BlogServiceDeps) {
  /** The banner with its variants, as the blog records it. */
  async function storeBanner({ data, image, baseUrl }: BannerInput) {
    const { width, height } = image;
    const stored = await storage.save({
      data,
      extension: image.extension,
      mimeType: image.mimeType,
      width,
      height,
      baseUrl,
    });
    return { ...stored, width, height };
  }

  const discardBanner = (key: string) => discardStoredBanner(storage, logger, key);

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
   * Blogs as the viewer sees them, from lean reads (or toObject() of a document), or as cards: the authors
   * (a card's by name only) and whether the viewer liked each come from one batched query each, run side by
   * side, and every blog is shaped in one pass (each author only once per page).
   */
  async function present(blogs: Record<string, unknown>[], viewer: Viewer): Promise<BlogView[]>;
  async function present(
    blogs: Record<string, unknown>[],
    viewer: Viewer,
    card: boolean,
    snippets?: SnippetView[],
  ): Promise<BlogView[] | BlogCardView[]>;
  async function present(blogs: Record<string, unknown>[], viewer: Viewer, card = false, snippets?: SnippetView[]) {
    if (blogs.length === 0) return [];
    const blogIds = blogs.map((blog) => blog._id);
    const [found, likes] = await Promise.all([
      readAuthors(distinctIds(blogs.map((blog) => blog.author))),
      // an anonymous reader (PUBLIC_READS) likes nothing
      viewer._id.equals(ANONYMOUS_VIEWER._id)
        ? []
        : findDirect(LikeModel, { user: viewer._id, blog: { $in: blogIds } }, { projection: LIKED_BLOG }),
    ]);
    const shownAuthor = card
      ? authorCardView
      : (author: Record<string, unknown>) => authorView(userView(author), viewer);
    const authorViews = new Map(found.map((author) => [String(author._id), shownAuthor(author)]));
    const liked = new Set(likes.map((like) => String(like.blog)));
    const withStatus = canReadDrafts(viewer);
    return blogs.map((blog, index) => {
      const author = authorViews.get(String(blog.author)) ?? null;
      const likedByMe = liked.has(String(blog._id));
      return card
        ? blogCardView(blog, author, likedByMe, snippets?.[index], withStatus)
        : blogView(blog, author, likedByMe, snippets?.[index]);
    });
  }

  /** The authors of a page as stored (their view's fields): those read lately from the cache, the others in one query. */
  async function readAuthors(ids: ReturnType<typeof distinctIds>): Promise<Record<string, unknown>[]> {
    if (!authors) return findDirect(UserModel, { _id: { $in: ids } }, { projection: USER_VIEW });
    const kept: Record<string, unknown>[] = [];
    const missing = ids.filter((id) => {
      const author = authors.get(String(id), String(id));
      if (author) kept.push(author);
      return !author;
    });
    if (missing.length === 0) return kept;
    const mark = authors.mark();
    const read = await findDirect(UserModel, { _id: { $in: missing } }, { projection: USER_VIEW });
    for (const author of read) authors.keep(mark, String(author._id), String(author._id), author);
    return kept.concat(read);
  }

  /**
   * A page of blogs in the asked order: one more than the page is read to know whether a next page
   * exists, and its cursor names the page's last blog and the query (filter and order) it belongs to.
   * A search (`q`) narrows the query; without a `sort` of its own it is ordered by relevance instead.
   */
  async function listBlogs(viewer: Viewer, page: BlogListQuery): Promise<BlogPage> {
    const search = page.q === undefined ? undefined : blogSearchOf(page.q);
    if (search && page.sort === undefined)
      return searchBlogs(viewer, buildBlogListQuery(viewer, page).filter, search, page);
    const plan = buildBlogListQuery(viewer, page, search?.filter);
    // worked out only when a cursor is read or written (a last or deep page needs none), and once
    let queryId: string | undefined;
    const fingerprint = () => (queryId ??= queryFingerprint([plan.filter, plan.sort]));
    const position = page.cursor === undefined ? null : cursors.decode(page.cursor, fingerprint());
    if (page.cursor !== undefined && !position) throw foreignCursor(page.cursor);
    const projection = page.card ? (search ? CARD_WITH_CONTENT : CARD) : VIEW;
    const [total, found] = await Promise.all([
      page.count === false ? null : countDirect(BlogModel, plan.filter),
      findDirect(BlogModel, withKeyset(plan, position), {
        projection,
        sort: plan.sort,
        skip: page.offset,
        limit: page.limit + 1,
      }),
    ]);
    const blogs = found.slice(0, page.limit);
    const last = found.length > page.limit ? blogs[blogs.length - 1] : undefined;
    const nextCursor = last
      ? cursors.encode(fingerprint(), { value: sortValueOf(plan, last), id: String(last._id) })
      : null;
    const snippets = search && blogs.map((blog) => blogSnippet(blog, search));
    return { total, blogs: await present(blogs, viewer, page.card ?? false, snippets), nextCursor };
  }

  /**
   * A search's page in relevance order (services/blog-search.ts): the title tier, then the other, each
   * newest first; one more than the page is read, to know whether a next page exists. By offset, the first
   * tier is read from the offset beside the total, the other only when the page reaches past the first. A
   * cursor names the tier its page ended in and that blog's place there, and the next page goes on from it
   * (then into the other tier) as a list's does. The content is read for the snippets, and left out of cards.
   */
  async function searchBlogs(
    viewer: Viewer,
    filter: BlogFilter,
    search: BlogSearch,
    page: BlogListQuery,
  ): Promise<BlogPage> {
    const tiers = search.tiers.map((tier) => ({ ...filter, ...tier }));
    const fingerprints: string[] = [];
    // bound to the tier as well as the query: a cursor says which tier it goes on in
    const fingerprint = (tier: Tier) =>
      (fingerprints[tier] ??= queryFingerprint(['relevance', tier, tiers[tier], search.order.sort]));
    const start = page.cursor === undefined ? undefined : searchPositionOf(page.cursor, fingerprint);
    const projection = page.card ? CARD_WITH_CONTENT : VIEW;
    const wanted = page.limit + 1;
    const read = (tier: Tier, position: CursorPosition | null, skip: number, limit: number) =>
      findDirect(BlogModel, withKeyset({ pageFilter: tiers[tier], ...search.order }, position), {
        projection,
        sort: search.order.sort,
        skip,
        limit,
      });

    const firstTier = start?.tier ?? 0;
    const [total, first] = await Promise.all([
      page.count === false ? null : countDirect(BlogModel, { ...filter, ...search.filter }),
      read(firstTier, start?.position ?? null, start ? 0 : page.offset, wanted),
    ]);
    let found = first;
    // by offset with a count, whether any match lies past the first tier's rows is known without reading
    const more = start !== undefined || total === null || total > page.offset + first.length;
    if (firstTier === 0 && first.length < wanted && more) {
      // the second tier from its start, unless the offset passed the whole first tier: then past the rest of it
      const skip =
        start || first.length > 0 || page.offset === 0
          ? 0
          : Math.max(0, page.offset - (await countDirect(BlogModel, tiers[0])));
      found = first.concat(await read(1, null, skip, wanted - first.length));
    }
    const blogs = found.slice(0, page.limit);
    const last = found.length > page.limit ? page.limit - 1 : undefined;
    const nextCursor =
      last === undefined
        ? null
        : cursors.encode(fingerprint(last < first.length ? firstTier : 1), {
            value: sortValueOf(search.order, blogs[last]),
            id: String(blogs[last]._id),
          });
    const snippets = blogs.map((blog) => blogSnippet(blog, search));
    return { total, blogs: await present(blogs, viewer, page.card ?? false, snippets), nextCursor };
  }

  /** Where a search's cursor goes on: in the tier whose fingerprint it carries. */
  function searchPositionOf(cursor: string, fingerprint: (tier: Tier) => string) {
    for (const tier of [0, 1] as const) {
      const position = cursors.decode(cursor, fingerprint(tier));
      if (position) return { tier, position };
    }
    throw foreignCursor(cursor);
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
   * A blog by slug; each read of a published blog counts one view, atomically, unless `countsView` is false
   * (a HEAD request: nobody read it). Drafts only for those who may read them (a draft costs those readers
   * one more query: counting views must not touch drafts).
   */
  async function readBlogBySlug(slug: string, viewer: Viewer, { countsView = true } = {}): Promise<BlogView> {
    const published = { slug, status: 'published' };
    let blog = countsView
      ? await incrementDirect(BlogModel, published, { viewsCount: 1 }, VIEW)
      : ((await findDirect(BlogModel, published, { projection: VIEW, limit: 1 }))[0] ?? null);
    if (!blog && canReadDrafts(viewer))
      [blog = null] = await findDirect(BlogModel, { slug }, { projection: VIEW, limit: 1 });
    if (!blog) throw new NotFound('Blog not found');
    return (await present([blog], viewer))[0];
  }

  async function createBlog(
    author: Viewer,
    { banner: bannerInput, excerpt, tags = [], publishAt, ...fields }: NewBlog,
  ): Promise<BlogView> {
    const banner = await storeBanner(bannerInput);
    const blog = new BlogModel({
      ...fields,
      ...scheduleOf(fields.status, publishAt),
      ...cardFields(fields.content, excerpt, false),
      ...searchFieldsOf(fields.title, fields.content),
      textRules: PLAIN_TEXT_RULES,
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
    const view = (await present([blog.toObject()], author))[0];
    if (blog.status === 'published')
      await events.record(blogEvent('blog.published', String(blog._id), blog.updatedAt ?? new Date(), view));
    return view;
  }

  async function updateBlog(blogId: string, changes: BlogChanges, viewer: Viewer): Promise<BlogView> {
    const blog = await BlogModel.findById(blogId);
    if (!blog) throw new NotFound('Blog not found');
    const { banner, regenerateSlug, excerpt, publishAt, ...fields } = changes;
    // a time to publish a post that is already out would otherwise be dropped without a word
    if (publishAt && fields.status === undefined && blog.status === 'published')
      throw RequestValidationError.forField('publishAt', ALREADY_PUBLISHED, 'body', publishAt);
    const statusBefore = blog.status;
    for (const [field, value] of Object.entries(fields)) if (value !== undefined) blog.set(field, value);
    if (publishAt !== undefined) blog.set('publishAt', publishAt === '' ? undefined : new Date(publishAt));
    // publishing by hand (or an already published post) leaves nothing to schedule
    if (blog.status === 'published') blog.set('publishAt', undefined);
    // a form sends every field again: only a value that differs is a change
    const contentChanged = blog.isModified('content');
    if (contentChanged || excerpt !== undefined)
      blog.set(cardFields(blog.content, excerpt, blog.customExcerpt ?? false));
    if (contentChanged || blog.isModified('title')) blog.set(searchFieldsOf(blog.title, blog.content));
    // the card and the terms both worked out again from the content, by the rules of now
    if (contentChanged) blog.set('textRules', PLAIN_TEXT_RULES);
    if (fields.status === 'published' && !blog.publishedAt) blog.publishedAt = new Date();
    // publication ends the post's preview links for good, even if it goes back to draft later
    if (blog.status === 'published' && statusBefore !== 'published')
      blog.previewVersion = (blog.previewVersion ?? 0) + 1;
    // a slug already the title's own is not made again
    const newSlug = regenerateSlug && slugBaseFromTitle(blog.title) !== blog.slug;
    // an edit that changes nothing is none: no write, no new updatedAt (the feeds' dates), no blog.updated
    if (!blog.isModified() && !banner && !newSlug) return (await present([blog.toObject()], viewer))[0];
    const oldBannerKey = blog.banner?.key;
    const newBanner = banner && (await storeBanner(banner));
    if (newBanner) blog.set('banner', newBanner);
    try {
      // Only modified paths are written, so counters changed meanwhile by likes and views are kept.
      if (newSlug) await saveWithUniqueSlug(blog, blog.title);
      else await blog.save();
    } catch (error) {
      if (newBanner) await discardBanner(newBanner.key);
      // deleted (or trashed) since it was read
      if (error instanceof mongoose.Error.DocumentNotFoundError) throw new NotFound('Blog not found');
      throw error;
    }
    if (newBanner && oldBannerKey) await discardBanner(oldBannerKey);
    const view = (await present([blog.toObject()], viewer))[0];
    const name = updateEventName(statusBefore, blog.status);
    await events.record(blogEvent(name, String(blog._id), blog.updatedAt ?? new Date(), view));
    return view;
  }

  /** Removes the blog first (it disappears at once), then what hangs off it: comments, likes, the banner file. */
  async function deleteBlog(blogId: Types.ObjectId | string): Promise<void> {
    const blog = await BlogModel.findOneAndDelete({ _id: blogId });
    if (!blog) throw new NotFound('Blog not found');
    await Promise.all([CommentModel.deleteMany({ blog: blog._id }), LikeModel.deleteMany({ blog: blog._id })]);
    if (blog.banner?.key) await discardBanner(blog.banner.key);
    // only the instance whose delete found the blog records it, and a blog is deleted once: its id is the event's
    await events.record({
      id: `blog.deleted:${String(blog._id)}`,
      name: 'blog.deleted',
      blogId: String(blog._id),
      payload: { _id: String(blog._id), slug: blog.slug },
      occurredAt: new Date(),
    });
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

  /** A draft's preview version, for a link to it: 404 for no blog, 400 for a post that is not a draft. */
  async function previewVersionOf(blogId: string): Promise<number> {
    const blog = await BlogModel.findById(blogId, 'status previewVersion').lean();
    if (!blog) throw new NotFound('Blog not found');
    if (blog.status !== 'draft') throw new BadRequest('Only a draft has preview links: this post is published');
    return blog.previewVersion ?? 0;
  }

  /** The draft a preview link names, as anyone may see it; undefined once it is published, gone or revoked. */
  async function readPreview(blogId: string, version: number): Promise<BlogView | undefined> {
    const blog = await BlogModel.findOne(
      { _id: blogId, status: 'draft', previewVersion: version === 0 ? { $in: [0, null] } : version },
      BLOG_VIEW_FIELDS,
    ).lean();
    return blog ? (await present([blog], ANONYMOUS_VIEWER))[0] : undefined;
  }

  /** Every preview link of the post stops working. */
  async function revokePreviews(blogId: string): Promise<void> {
    const { matchedCount } = await BlogModel.updateOne(
      { _id: blogId },
      { $inc: { previewVersion: 1 } },
      { timestamps: false },
    );
    if (!matchedCount) throw new NotFound('Blog not found');
  }

  return {
    present,
    previewVersionOf,
    readPreview,
    revokePreviews,
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
