// @ts-check
/**
 * The floor: the least the API's read routes need, with nothing between node:http and the official
 * mongodb driver. Same checks (the JWT verifies, its session is live, its user exists and is not being
 * deleted), same queries (session ‖ user; count ‖ page; authors ‖ likes; findOneAndUpdate for a view),
 * same JSON (and the same Atom feed, through the same library). No framework, no middleware, no logging,
 * no validation beyond what the answer depends on. The benchmark proves its answers equal the API's
 * before it measures either (bench/lib/equivalence.js).
 *
 *   MONGODB_URI=... JWT_ACCESS_SECRET=... SITE_URL=... PUBLIC_URL=<the API's> PORT=0 node bench/floor-server.js
 * Prints "floor listening on <port>" when ready. `startFloor()` runs it in the caller's process
 * (tests/bench-equivalence.test.ts).
 */
'use strict';
const { createHash, createHmac, createSecretKey, timingSafeEqual } = require('node:crypto');
const http = require('node:http');
const path = require('node:path');
const { Feed } = require('feed');
const jwt = require('jsonwebtoken');
const { MongoClient, ObjectId } = require('mongodb');

const OBJECT_ID = /^[0-9a-f]{24}$/;
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/;
const BLOG_FIELDS = {
  title: 1,
  slug: 1,
  content: 1,
  excerpt: 1,
  readingTime: 1,
  tags: 1,
  banner: 1,
  author: 1,
  viewsCount: 1,
  likesCount: 1,
  commentsCount: 1,
  status: 1,
  publishedAt: 1,
  createdAt: 1,
  updatedAt: 1,
};
/** `fields=card`: what a card shows (and the order's key, createdAt, for the cursor). */
const CARD_FIELDS = {
  title: 1,
  slug: 1,
  excerpt: 1,
  readingTime: 1,
  tags: 1,
  banner: 1,
  author: 1,
  likesCount: 1,
  commentsCount: 1,
  status: 1,
  publishedAt: 1,
  createdAt: 1,
};
const USER_FIELDS = {
  username: 1,
  email: 1,
  role: 1,
  firstName: 1,
  lastName: 1,
  socialLinks: 1,
  createdAt: 1,
  updatedAt: 1,
};
/** A card's author: ids and the names its display name is made of. */
const AUTHOR_CARD_FIELDS = { username: 1, firstName: 1, lastName: 1 };
/** First and last names, those given, else the username. */
const displayName = (/** @type {any} */ user) =>
  [user.firstName, user.lastName].filter(Boolean).join(' ') || user.username;

/** GET /feed.xml's fields and bound: the 50 latest publications, their authors' names. */
const FEED_FIELDS = {
  slug: 1,
  title: 1,
  excerpt: 1,
  tags: 1,
  author: 1,
  publishedAt: 1,
  createdAt: 1,
  updatedAt: 1,
};
const FEED_ENTRIES = 50;
const DIST_LIB = path.join(__dirname, '..', 'dist', 'lib');
const escapeText = (/** @type {string} */ text) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const nameOf = (/** @type {any} */ author) =>
  [author?.firstName, author?.lastName].filter(Boolean).join(' ') || author?.username || 'Unknown author';

/** The newest first, as the lists and a search's tiers are ordered. */
const NEWEST_FIRST = /** @type {const} */ ({ createdAt: -1, _id: -1 });

/**
 * Connects to `uri` and listens on `port` (0: any) of 127.0.0.1; resolves to the server's base URL and
 * how to stop it. `siteUrl` and `publicUrl` are the API's SITE_URL and PUBLIC_URL (the feed's links).
 * `apiLib` is where the API's pure helpers are required from for a search's terms and snippets: the
 * build the benchmark measures (dist/lib) unless given (the equivalence test gives src/lib).
 * @param {{ uri: string, accessSecret: string, siteUrl: string, publicUrl: string, port?: number, apiLib?: string }} options
 */
async function startFloor({ uri, accessSecret, siteUrl, publicUrl, port = 0, apiLib = DIST_LIB }) {
  // a snippet must be the API's to the byte (where the text is cut, which words are marked): the floor
  // calls the same pure functions on the same stored text rather than keep a copy of their rules
  const { termsOf, titleTermsOf, snippetOf } = require(path.join(apiLib, 'search-text'));
  const { plainTextOf } = require(path.join(apiLib, 'plain-text'));
  const client = new MongoClient(uri);
  await client.connect();
  const db = client.db();
  const sessions = db.collection('sessions');
  const users = db.collection('users');
  const blogs = db.collection('blogs');
  const likes = db.collection('likes');
  // a key object made once: given a string, jsonwebtoken would first try it as a PEM key on every call
  const secret = createSecretKey(Buffer.from(accessSecret));

  /** The signed-in user, or undefined (401). */
  async function authenticate(/** @type {http.IncomingMessage} */ req) {
    const match = BEARER.exec(req.headers.authorization ?? '');
    if (!match) return undefined;
    let claims;
    try {
      claims = jwt.verify(match[1], secret, { algorithms: ['HS256'] });
    } catch {
      return undefined;
    }
    if (typeof claims !== 'object' || !OBJECT_ID.test(String(claims.sub)) || !OBJECT_ID.test(String(claims.sid)))
      return undefined;
    const userId = new ObjectId(String(claims.sub));
    const [session, user] = await Promise.all([
      sessions.findOne({ _id: new ObjectId(String(claims.sid)), user: userId }, { projection: { expiresAt: 1 } }),
      users.findOne({ _id: userId, deletingAt: null }, { projection: USER_FIELDS }),
    ]);
    if (!session || session.expiresAt.getTime() <= Date.now() || !user) return undefined;
    return user;
  }

  const isAdmin = (/** @type {any} */ viewer) => viewer.role === 'admin';

  function userView(/** @type {any} */ user, withEmail = true) {
    const view = {
      _id: user._id,
      username: user.username,
      email: withEmail ? user.email : undefined,
      role: user.role,
      firstName: user.firstName,
      lastName: user.lastName,
      socialLinks: user.socialLinks ?? {},
      createdAt: user.createdAt,
      updatedAt: user.updatedAt,
    };
    if (!withEmail) delete view.email;
    return view;
  }

  async function present(
    /** @type {any[]} */ page,
    /** @type {any} */ viewer,
    card = false,
    /** @type {unknown[] | undefined} */ snippets = undefined,
  ) {
    if (page.length === 0) return [];
    const authorIds = [...new Map(page.map((blog) => [String(blog.author), blog.author])).values()];
    const [authors, liked] = await Promise.all([
      users.find({ _id: { $in: authorIds } }, { projection: card ? AUTHOR_CARD_FIELDS : USER_FIELDS }).toArray(),
      likes
        .find({ user: viewer._id, blog: { $in: page.map((blog) => blog._id) } }, { projection: { blog: 1 } })
        .toArray(),
    ]);
    const authorById = new Map(
      authors.map((author) => [String(author._id), card ? author : userView(author, isAdmin(viewer))]),
    );
    const likedIds = new Set(liked.map((like) => String(like.blog)));
    return page.map((blog, index) =>
      card
        ? cardView(blog, authorById, likedIds, snippets?.[index], isAdmin(viewer))
        : {
            _id: blog._id,
            title: blog.title,
            slug: blog.slug,
            content: blog.content,
            excerpt: blog.excerpt,
            readingTime: blog.readingTime,
            tags: blog.tags ?? [],
            banner: {
              url: blog.banner.url,
              width: blog.banner.width,
              height: blog.banner.height,
              variants: (blog.banner.variants ?? []).map(({ url, width, height, format }) => ({
                url,
                width,
                height,
                format,
              })),
            },
            author: authorById.get(String(blog.author)) ?? null,
            viewsCount: blog.viewsCount ?? 0,
            likesCount: blog.likesCount ?? 0,
            commentsCount: blog.commentsCount ?? 0,
            status: blog.status,
            publishedAt: blog.publishedAt ?? null,
            createdAt: blog.createdAt,
            updatedAt: blog.updatedAt,
            likedByMe: likedIds.has(String(blog._id)),
            // a search's hits only; JSON.stringify drops a key whose value is undefined
            snippet: snippets?.[index],
          },
    );
  }

  /**
   * `fields=card`: one image (the narrowest variant of at least 640 pixels, else the widest), the author's
   * display name, no content, the status for admins only.
   */
  function cardView(
    /** @type {any} */ blog,
    /** @type {Map<string, any>} */ authorById,
    /** @type {Set<string>} */ likedIds,
    /** @type {unknown} */ snippet,
    /** @type {boolean} */ withStatus,
  ) {
    const variants = blog.banner.variants ?? [];
    const image = variants.find((/** @type {any} */ variant) => variant.width >= 640) ?? variants.at(-1) ?? blog.banner;
    const author = authorById.get(String(blog.author));
    return {
      _id: blog._id,
      title: blog.title,
      slug: blog.slug,
      excerpt: blog.excerpt,
      readingTime: blog.readingTime,
      tags: blog.tags ?? [],
      banner: { url: image.url, width: image.width, height: image.height },
      author: author ? { _id: author._id, name: displayName(author) } : null,
      likesCount: blog.likesCount ?? 0,
      commentsCount: blog.commentsCount ?? 0,
      // JSON.stringify drops a key whose value is undefined
      status: withStatus ? blog.status : undefined,
      publishedAt: blog.publishedAt ?? null,
      likedByMe: likedIds.has(String(blog._id)),
      snippet,
    };
  }

  /** Only what the benchmark's requests send (a tag already normalised); anything else is ignored. */
  function pageOf(/** @type {URLSearchParams} */ query) {
    return {
      limit: Number(query.get('limit') ?? 20),
      offset: Number(query.get('offset') ?? 0),
      tag: query.get('tag'),
      card: query.get('fields') === 'card',
      q: query.get('q'),
      cursor: query.get('cursor'),
    };
  }

  /** The Atom feed as the API renders it (with the same library): SITE_URL's links, PUBLIC_URL's self link. */
  async function atomFeed() {
    const self = `${publicUrl}/feed.xml`;
    const host = new URL(siteUrl).host;
    const posts = await blogs
      .find({ status: 'published' }, { projection: FEED_FIELDS })
      .sort({ publishedAt: -1, _id: -1 })
      .limit(FEED_ENTRIES)
      .toArray();
    const authorIds = [...new Map(posts.map((post) => [String(post.author), post.author])).values()];
    const authors = await users
      .find({ _id: { $in: authorIds } }, { projection: { username: 1, firstName: 1, lastName: 1 } })
      .toArray();
    const authorById = new Map(authors.map((author) => [String(author._id), author]));
    const updated = new Date(Math.max(0, ...posts.map((post) => post.updatedAt.getTime())));
    const feed = new Feed({ id: self, title: host, link: siteUrl, feed: self, updated, copyright: '' });
    for (const post of posts) {
      feed.addItem({
        id: `tag:${host},${post.createdAt.toISOString().slice(0, 10)}:posts/${post._id}`,
        title: escapeText(post.title),
        link: `${siteUrl}/posts/${encodeURIComponent(post.slug)}`,
        date: post.updatedAt,
        published: post.publishedAt ?? post.createdAt,
        description: post.excerpt ? escapeText(post.excerpt) : undefined,
        author: [{ name: nameOf(authorById.get(String(post.author))) }],
        category: (post.tags ?? []).map((/** @type {string} */ tag) => ({ name: tag, term: tag })),
      });
    }
    return feed.atom1();
  }

  /**
   * A list's filter as the API builds it (services/blog-list-query.ts), key order included, since its
   * cursors are bound to it: the tag, then the statuses the viewer may see.
   */
  const listFilter = (/** @type {any} */ viewer, /** @type {string | null} */ tag) => ({
    ...(tag ? { tags: tag } : {}),
    status: isAdmin(viewer) ? { $in: ['draft', 'published'] } : 'published',
  });

  // the API's cursors (src/lib/list-cursor.ts), for the order the floor serves: newest first
  const cursorKey = createHmac('sha256', accessSecret).update('blog-list-cursor/v1').digest();
  const sign = (/** @type {string} */ payload) => createHmac('sha256', cursorKey).update(payload).digest('base64url');
  const fingerprintOf = (/** @type {unknown[]} */ query) =>
    createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 22);
  /** A list's query is its filter and order; a search's tier is named too (services/blog.service.ts). */
  const listQuery = (/** @type {object} */ filter) => [filter, NEWEST_FIRST];
  const tierQuery = (/** @type {0 | 1} */ tier, /** @type {object} */ filter) => [
    'relevance',
    tier,
    filter,
    NEWEST_FIRST,
  ];
  const cursorAfter = (/** @type {unknown[]} */ query, /** @type {any} */ blog) => {
    const payload = Buffer.from(
      JSON.stringify([fingerprintOf(query), { d: blog.createdAt.toISOString() }, String(blog._id)]),
    ).toString('base64url');
    return `${payload}.${sign(payload)}`;
  };
  /**
   * What a cursor of this filter's list says comes next, as a condition (createdAt is always set, so
   * the API's branch for a missing one is not needed); undefined for a cursor the API did not sign for it.
   */
  const after = (/** @type {string} */ cursor, /** @type {object} */ filter) => {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) return undefined;
    const expected = Buffer.from(sign(payload));
    if (signature.length !== expected.length || !timingSafeEqual(Buffer.from(signature), expected)) return undefined;
    const [boundTo, value, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (boundTo !== fingerprintOf(listQuery(filter)) || !OBJECT_ID.test(id)) return undefined;
    const createdAt = new Date(value.d);
    return { $or: [{ createdAt: { $lt: createdAt } }, { createdAt, _id: { $lt: new ObjectId(id) } }] };
  };

  /**
   * A search's page (services/blog-search.ts): blogs whose title holds every term, then the others,
   * newest first in each, one more than the page to know whether a next one exists. The floor reads the
   * title tier's rows from the offset and goes on into the other tier only when they run out within the
   * page, counting the title tier only when the offset passed it whole; the content is read for the
   * snippets (and left out of cards). `filter` is the API's list filter, which the next cursor names.
   */
  async function searchPage(
    /** @type {object} */ query,
    /** @type {object} */ filter,
    /** @type {any} */ viewer,
    /** @type {any} */ asked,
  ) {
    const { q, limit, offset, card } = asked;
    const terms = termsOf(q);
    const all = { searchTerms: { $all: terms } };
    const inTitle = { searchTerms: { $all: titleTermsOf(terms) } };
    const tiers = [inTitle, { ...all, $nor: [inTitle] }];
    const projection = card ? { ...CARD_FIELDS, content: 1 } : BLOG_FIELDS;
    const read = (/** @type {object} */ tier, /** @type {number} */ skip, /** @type {number} */ count) =>
      blogs
        .find({ ...query, ...tier }, { projection })
        .sort(NEWEST_FIRST)
        .skip(skip)
        .limit(count)
        .toArray();
    const [total, titled] = await Promise.all([
      blogs.countDocuments({ ...query, ...all }),
      read(inTitle, offset, limit + 1),
    ]);
    let found = titled;
    if (titled.length <= limit && total > offset + titled.length) {
      const skip =
        titled.length > 0 || offset === 0
          ? 0
          : Math.max(0, offset - (await blogs.countDocuments({ ...query, ...inTitle })));
      found = titled.concat(await read(tiers[1], skip, limit + 1 - titled.length));
    }
    const page = found.slice(0, limit);
    const lastTier = limit - 1 < titled.length ? 0 : 1;
    const nextCursor =
      found.length > limit
        ? cursorAfter(tierQuery(lastTier, { ...filter, ...tiers[lastTier] }), page[limit - 1])
        : null;
    const matching = new Set(terms);
    const snippets = page.map((blog) => snippetOf(blog.title, plainTextOf(blog.content), matching));
    return { limit, offset, total, blogs: await present(page, viewer, card, snippets), nextCursor };
  }

  async function route(/** @type {http.IncomingMessage} */ req) {
    const url = new URL(req.url ?? '/', 'http://floor');
    if (url.pathname === '/feed.xml') return [200, await atomFeed(), 'application/atom+xml; charset=utf-8'];
    const viewer = await authenticate(req);
    if (!viewer) return [401, { code: 'AuthenticationError', message: 'Access token is invalid or expired' }];
    if (url.pathname === '/api/v1/users/current') return [200, { user: userView(viewer) }];
    if (url.pathname === '/api/v1/blogs' || url.pathname === '/api/v1/blogs/') {
      const asked = pageOf(url.searchParams);
      const { limit, offset, card, cursor } = asked;
      const filter = listFilter(viewer, asked.tag);
      // admins see every status: the floor's query needs no condition on it (the cursor names the API's)
      const { status: _status, ...anyStatus } = filter;
      const query = isAdmin(viewer) ? anyStatus : filter;
      if (asked.q) return [200, await searchPage(query, filter, viewer, asked)];
      const next = cursor ? after(cursor, filter) : undefined;
      // the API's answer is a 400 with details the benchmark never asks for: the floor only refuses
      if (cursor && !next) return [400, { code: 'ValidationError', message: 'Invalid cursor' }];
      const [total, page] = await Promise.all([
        blogs.countDocuments(query),
        blogs
          .find(next ? { ...query, ...next } : query, { projection: card ? CARD_FIELDS : BLOG_FIELDS })
          .sort(NEWEST_FIRST)
          .skip(offset)
          .limit(limit + 1)
          .toArray(),
      ]);
      const shown = page.slice(0, limit);
      const last = page.length > limit ? shown[shown.length - 1] : undefined;
      const nextCursor = last ? cursorAfter(listQuery(filter), last) : null;
      return [200, { limit, offset, total, blogs: await present(shown, viewer, card), nextCursor }];
    }
    const slug = /^\/api\/v1\/blogs\/([^/]+)$/.exec(url.pathname)?.[1];
    if (slug) {
      let blog = await blogs.findOneAndUpdate(
        { slug: decodeURIComponent(slug), status: 'published' },
        { $inc: { viewsCount: 1 } },
        { returnDocument: 'after', projection: BLOG_FIELDS },
      );
      if (!blog && isAdmin(viewer))
        blog = await blogs.findOne({ slug: decodeURIComponent(slug) }, { projection: BLOG_FIELDS });
      if (!blog) return [404, { code: 'NotFound', message: 'Blog not found' }];
      return [200, { blog: (await present([blog], viewer))[0] }];
    }
    return [404, { code: 'NotFound', message: 'Not found' }];
  }

  const server = http.createServer((req, res) => {
    route(req).then(
      ([status, body, type]) => {
        // a text answer (the feed) as it is; anything else as JSON
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        res.writeHead(/** @type {number} */ (status), {
          'Content-Type': /** @type {string} */ (type ?? 'application/json; charset=utf-8'),
          'Content-Length': Buffer.byteLength(text),
        });
        res.end(text);
      },
      (error) => {
        process.stderr.write(`floor: ${error instanceof Error ? error.stack : String(error)}\n`);
        res.writeHead(500, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end('{"code":"ServerError","message":"Internal server error"}');
      },
    );
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  const stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(() => resolve(undefined)));
    await client.close();
  };
  return { url: `http://127.0.0.1:${address.port}`, port: address.port, stop };
}

async function main() {
  const floor = await startFloor({
    uri: /** @type {string} */ (process.env.MONGODB_URI),
    accessSecret: /** @type {string} */ (process.env.JWT_ACCESS_SECRET),
    siteUrl: /** @type {string} */ (process.env.SITE_URL),
    publicUrl: /** @type {string} */ (process.env.PUBLIC_URL),
    port: Number(process.env.PORT ?? 0),
  });
  process.stdout.write(`floor listening on ${floor.port}\n`);
  const stop = () => floor.stop().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

module.exports = { startFloor };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`floor: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
