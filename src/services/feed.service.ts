/**
 * The Atom feeds (all posts, a tag's, an author's) and the sitemap: published posts only, never drafts,
 * linked into the front end (SITE_URL, lib/site-links.ts). Each reads only the fields it writes out, never a
 * post's content: a feed entry carries the stored excerpt as its summary, the sitemap a slug and a date.
 */
import { Feed } from 'feed';
import { XMLBuilder } from 'fast-xml-parser';
import { NotFound } from '../errors/http-errors';
import type { SiteLinks } from '../lib/site-links';
import { Types } from 'mongoose';
import { BlogModel } from '../models/blog.model';
import { distinctIds, findDirect, projectionOf } from '../models/direct-read';
import { UserModel, displayNameOf } from '../models/user.model';

/** What a feed route answers when SITE_URL is unset: its entries would have nowhere to link to. */
export const FEEDS_NEED_SITE_URL = 'Feeds and the sitemap need SITE_URL, the front end their links point to';

/** Entries of one feed: what a feed reader needs to catch up, in a few KB. */
export const FEED_ENTRIES = 50;
/** The sitemap protocol's limit for one file; beyond it the oldest posts are left out. */
export const SITEMAP_ENTRIES = 50_000;

const FEED_FIELDS = projectionOf('_id slug title excerpt tags author publishedAt createdAt updatedAt');
const AUTHOR_FIELDS = 'username firstName lastName';
const AUTHOR_PROJECTION = projectionOf(AUTHOR_FIELDS);
const PUBLISHED = { status: 'published' } as const;

export interface FeedQuery {
  tag?: string;
  authorId?: string;
}

/** Where the feeds point: the front end's links, and the API's own base URL for the feed's self link. */
export interface FeedLinks {
  site: SiteLinks;
  siteUrl: string;
  publicUrl: string;
}

interface StoredPost {
  _id: Types.ObjectId;
  slug: string;
  title: string;
  excerpt?: string;
  tags?: string[];
  author: Types.ObjectId;
  publishedAt?: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface StoredAuthor {
  _id: unknown;
  username?: string;
  firstName?: string;
  lastName?: string;
}

/**
 * Text as XML 1.0 may carry it: each character it forbids (the C0 controls but tab, newline and return, such
 * as the vertical tab of a line break pasted from Word; a lone surrogate; U+FFFE, U+FFFF) becomes a space. The
 * API stores and answers such text as it was sent; one of them written as it is would make the whole feed
 * unreadable to every feed reader.
 */
const xmlText = (text: string) => text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, ' ');

const nameOf = (author: StoredAuthor | undefined) => xmlText(author ? displayNameOf(author) : 'Unknown author');

/**
 * Plain text for the feed's `type="html"` title and summary (the feed library's only kind): escaped, so that a
 * title such as `<script>` is shown as written, never run, and so that no `]]>` can end its CDATA section.
 */
const asHtmlText = (text: string) => xmlText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A stable entry id (RFC 4151 tag URI): the post's id, which outlives a changed slug, under the site's host. */
const entryId = (host: string, post: { _id: unknown; createdAt: Date }) =>
  `tag:${host},${post.createdAt.toISOString().slice(0, 10)}:posts/${String(post._id)}`;

/** The feed's own address, with its query in a fixed order so that one feed has one id. */
function feedAddress(publicUrl: string, query: FeedQuery): string {
  const search = new URLSearchParams();
  if (query.tag) search.set('tag', query.tag);
  if (query.authorId) search.set('author', query.authorId);
  const text = search.toString();
  return `${publicUrl}/feed.xml${text ? `?${text}` : ''}`;
}

/**
 * The feed library (4.x) escapes the self link's `&` twice (`&amp;amp;`), so a reader subscribing to a tag's
 * feed of one author through that link would ask for `amp;author` and get the tag's feed of everyone. The
 * link is written back escaped once, as the feed's `<id>` is.
 */
function withSelfLinkEscapedOnce(atom: string, address: string): string {
  const once = address.replace(/&/g, '&amp;');
  if (once === address) return atom;
  return atom.replace(`rel="self" href="${once.replace(/&/g, '&amp;')}"`, `rel="self" href="${once}"`);
}

function feedTitle(host: string, query: FeedQuery, author: StoredAuthor | undefined): string {
  const parts = [host];
  if (query.tag) parts.push(`#${query.tag}`);
  if (query.authorId) parts.push(`by ${nameOf(author)}`);
  return parts.join(' ');
}

export function createFeedService() {
  /** The newest published posts (by first publication), as an Atom 1.0 document. */
  async function atomFeed(query: FeedQuery, links: FeedLinks): Promise<string> {
    const byAuthor = query.authorId ? { author: new Types.ObjectId(query.authorId) } : undefined;
    const filter = { ...PUBLISHED, ...(query.tag ? { tags: query.tag } : {}), ...byAuthor };
    // the feeds are hot public reads: straight to the driver (models/direct-read.ts)
    const posts = await findDirect<StoredPost>(BlogModel, filter, {
      projection: FEED_FIELDS,
      sort: { publishedAt: -1, _id: -1 },
      limit: FEED_ENTRIES,
    });
    // An author's feed is a published author's: an account that published nothing (a reader, or an id that
    // is none) is a 404 alike, so the feed neither names readers to anyone nor tells which ids exist.
    if (byAuthor && posts.length === 0 && !(await BlogModel.exists({ ...PUBLISHED, ...byAuthor })))
      throw new NotFound('No published posts by this author');
    const authorIds = distinctIds([...posts.map((post) => post.author), byAuthor?.author]);
    const authors = await findDirect<StoredAuthor>(
      UserModel,
      { _id: { $in: authorIds } },
      { projection: AUTHOR_PROJECTION },
    );
    const authorsById = new Map(authors.map((author) => [String(author._id), author]));

    const host = new URL(links.siteUrl).host;
    // the newest change, never the clock: an unchanged feed keeps its bytes (and its ETag)
    const updated = new Date(Math.max(0, ...posts.map((post) => post.updatedAt.getTime())));
    const address = feedAddress(links.publicUrl, query);
    const feed = new Feed({
      id: address,
      title: feedTitle(host, query, query.authorId ? authorsById.get(query.authorId) : undefined),
      link: links.siteUrl,
      feed: address,
      updated,
      copyright: '',
    });
    for (const post of posts) {
      feed.addItem({
        id: entryId(host, post),
        title: asHtmlText(post.title),
        link: links.site.post(post.slug),
        date: post.updatedAt,
        published: post.publishedAt ?? post.createdAt,
        description: post.excerpt ? asHtmlText(post.excerpt) : undefined,
        author: [{ name: nameOf(authorsById.get(String(post.author))) }],
        category: (post.tags ?? []).map((tag) => ({ name: tag, term: tag })),
      });
    }
    return withSelfLinkEscapedOnce(feed.atom1(), address);
  }

  /** Every published post's link (up to SITEMAP_ENTRIES, newest first), reading only slugs and dates. */
  async function sitemap(links: FeedLinks): Promise<string> {
    const posts = await BlogModel.find(PUBLISHED, { _id: 0, slug: 1, updatedAt: 1 })
      .sort({ createdAt: -1, _id: -1 })
      .limit(SITEMAP_ENTRIES)
      .lean();
    const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@' });
    return builder.build({
      '?xml': { '@version': '1.0', '@encoding': 'UTF-8' },
      urlset: {
        '@xmlns': 'http://www.sitemaps.org/schemas/sitemap/0.9',
        url: posts.map((post) => ({ loc: links.site.post(post.slug), lastmod: post.updatedAt.toISOString() })),
      },
    });
  }

  return { atomFeed, sitemap };
}

export type FeedService = ReturnType<typeof createFeedService>;
