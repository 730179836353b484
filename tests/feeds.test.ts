/**
 * GET /feed.xml and GET /sitemap.xml (issue 21): read by a real feed parser and a real XML parser; published
 * posts only, newest publication first, links into SITE_URL, bounded and validated queries, public caching.
 */
import { parseFeed } from '@rowanmanning/feed-parser';
import { XMLParser } from 'fast-xml-parser';
import request from 'supertest';
import type { Express } from 'express';
import { createBlog } from './helpers/blogs';
import { expectFieldError } from './helpers/expectations';
import { useTestApp } from './helpers/test-app';
import { registerAdmin, registerUser, type SignedInUser } from './helpers/users';

const SITE = 'https://blog.example';
const ctx = useTestApp({ env: { SITE_URL: SITE } });
let app: Express;
let admin: SignedInUser;
const posts: Record<string, { _id: string; slug: string }> = {};
beforeAll(async () => {
  app = ctx.app;
  admin = await registerAdmin(ctx.app);
  await ctx.api.as(admin).put('/users/current').send({ first_name: 'Ada', last_name: 'Lovelace' }).expect(200);
  posts.older = await createBlog(app, admin, { status: 'published', tags: ['node'], title: 'Older <b>bold</b> & co' });
  posts.draft = await createBlog(app, admin, { status: 'draft', tags: ['node'] });
  posts.newer = await createBlog(app, admin, { status: 'published', excerpt: 'A <script>alert(1)</script> summary' });
});

const feedOf = (response: request.Response) => parseFeed(response.text);

describe('GET /feed.xml', () => {
  it('is an Atom feed of the published posts only, newest publication first, linking into SITE_URL', async () => {
    const response = await request(app).get('/feed.xml').expect(200);
    expect(response.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    const feed = feedOf(response);
    expect(feed.items.map((item) => item.url)).toEqual([
      `${SITE}/posts/${posts.newer.slug}`,
      `${SITE}/posts/${posts.older.slug}`,
    ]);
    const [newer, older] = feed.items;
    expect(older.title).toBe('Older <b>bold</b> & co');
    expect(older.categories.map((category) => category.term)).toEqual(['node']);
    expect(newer.description).toBe('A <script>alert(1)</script> summary');
    expect(response.text).not.toContain('<script>');
    expect(newer.authors[0].name).toBe('Ada Lovelace');
    expect(newer.id).toMatch(new RegExp(`^tag:blog\\.example,\\d{4}-\\d{2}-\\d{2}:posts/${posts.newer._id}$`));
    expect(newer.published).toBeInstanceOf(Date);
    expect(newer.updated).toBeInstanceOf(Date);
    expect(newer.content).toBeNull();
  });

  it("gives a tag's feed and an author's feed", async () => {
    const tagged = feedOf(await request(app).get('/feed.xml?tag=Node').expect(200));
    expect(tagged.title).toBe('blog.example #node');
    expect(tagged.items.map((item) => item.url)).toEqual([`${SITE}/posts/${posts.older.slug}`]);
    const authored = feedOf(await request(app).get(`/feed.xml?author=${admin.user._id}`).expect(200));
    expect(authored.title).toBe('blog.example by Ada Lovelace');
    expect(authored.items).toHaveLength(2);
    await request(app).get('/feed.xml?author=5f0000000000000000000000').expect(404);
  });

  it("links to itself with its whole query: a tag's feed of one author subscribes as that feed", async () => {
    const answer = await request(app).get(`/feed.xml?author=${admin.user._id}&tag=node`).expect(200);

    const { feed } = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(answer.text);
    const links = [feed.link].flat() as { rel: string; href: string }[];
    const self = new URL(links.find((link) => link.rel === 'self')!.href);
    expect(self.href).toBe(feed.id);
    expect(Object.fromEntries(self.searchParams)).toEqual({ tag: 'node', author: admin.user._id });
  });

  it('answers an account that published nothing as an unknown id: 404, never its name', async () => {
    const reader = await registerUser(app);
    await ctx.api.as(reader).put('/users/current').send({ first_name: 'Quinn', last_name: 'Hidden' }).expect(200);

    const answer = await request(app).get(`/feed.xml?author=${reader.user._id}`);

    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain('Quinn');
    // an author with posts, none of them with the tag: an empty feed, titled with the author's name
    const none = feedOf(await request(app).get(`/feed.xml?author=${admin.user._id}&tag=no-such-tag`).expect(200));
    expect(none.title).toBe('blog.example #no-such-tag by Ada Lovelace');
    expect(none.items).toHaveLength(0);
  });

  it.each([
    ['tag', `tag=${'x'.repeat(500)}`],
    ['tag', 'tag=a&tag=b'],
    ['tag', 'tag=%20%21'],
    ['tag', 'tag=%24'],
    ['author', 'author=nobody'],
    ['author', 'author=5f0000000000000000000000&author=5f0000000000000000000000'],
  ])("refuses a bad %s with the spec's 400 (%s)", async (field, query) => {
    const response = await request(app).get(`/feed.xml?${query}`);
    expectFieldError(response, field, 'query');
  });

  it('is public and revalidates with its ETag, whatever the token sent', async () => {
    const first = await request(app).get('/feed.xml').set('Authorization', 'Bearer nonsense').expect(200);
    expect(first.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=300');
    expect(first.headers.etag).toMatch(/^W\/"/);
    const again = await request(app).get('/feed.xml').set('If-None-Match', first.headers.etag);
    expect(again.status).toBe(304);
    expect(again.headers.vary).toBe(first.headers.vary);
  });
});

describe('GET /sitemap.xml', () => {
  it("lists each published post's link and last change, and no draft", async () => {
    const response = await request(app).get('/sitemap.xml').expect(200);
    expect(response.headers['content-type']).toBe('application/xml; charset=utf-8');
    const { urlset } = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'url' }).parse(
      response.text,
    );
    expect(urlset['@_xmlns']).toBe('http://www.sitemaps.org/schemas/sitemap/0.9');
    const urls = urlset.url as { loc: string; lastmod: string }[];
    expect(urls.map((url) => url.loc).sort()).toEqual(
      [posts.older, posts.newer].map((post) => `${SITE}/posts/${post.slug}`).sort(),
    );
    expect(urls.every((url) => !Number.isNaN(Date.parse(url.lastmod)))).toBe(true);
  });
});

describe('without SITE_URL', () => {
  it.each(['/feed.xml', '/sitemap.xml'])("answers %s 404 in the spec's error shape, naming SITE_URL", async (path) => {
    const response = await request(ctx.buildApp({ SITE_URL: '' }).app).get(path);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'NotFound', message: expect.stringContaining('SITE_URL') });
  });
});

describe('a draft published after newer posts', () => {
  it('leads the feed: entries go by first publication, not creation', async () => {
    await ctx.api.as(admin).put(`/blogs/${posts.draft._id}`).field('status', 'published').expect(200);
    const feed = feedOf(await request(app).get('/feed.xml').expect(200));
    expect(feed.items.map((item) => item.url)).toEqual(
      [posts.draft, posts.newer, posts.older].map((post) => `${SITE}/posts/${post.slug}`),
    );
  });
});

describe('text that XML forbids', () => {
  it('reaches the feed as spaces: a line break pasted from Word in a title, a control in an excerpt or a name', async () => {
    const author = await registerAdmin(app, 'chief@example.com');
    await ctx.api.as(author).put('/users/current').send({ first_name: 'Ad\u000bmin' }).expect(200);
    await createBlog(app, author, {
      status: 'published',
      title: 'Pasted from Word\u000bsecond line',
      excerpt: 'a\u0001b',
    });

    const response = await request(app).get(`/feed.xml?author=${author.user._id}`).expect(200);

    // XML 1.0 allows no C0 control but tab, newline and return: one would make every reader refuse the feed
    const forbidden = [...response.text].filter((character) => character < ' ' && !'\t\n\r'.includes(character));
    expect(forbidden).toEqual([]);
    const [entry] = feedOf(response).items;
    expect(entry.title).toBe('Pasted from Word second line');
    expect(entry.description).toBe('a b');
    expect(entry.authors[0].name).toBe('Ad min');
  });
});
