/**
 * The benchmark's fairness: its check (bench/lib/equivalence.js) lets through only answers equal to the
 * API's, status and body as text, with one view more on a slug read; and the floor (bench/floor-server.js)
 * answers every read the benchmark measures exactly as the API does, feed included, here on a small
 * database of its own.
 */
import path from 'node:path';
import mongoose from 'mongoose';
import request from 'supertest';
import { createBlog } from './helpers/blogs';
import { databaseUri } from './helpers/server-process';
import { useTestApp } from './helpers/test-app';
import type { SignedInUser } from './helpers/users';

interface Answer {
  status: number;
  text: string;
}

/* eslint-disable @typescript-eslint/no-require-imports */
const { compareAnswers } = require('../bench/lib/equivalence') as {
  compareAnswers(ours: Answer, floor: Answer, options?: { viewCounted?: boolean }): string[];
};
const { startFloor } = require('../bench/floor-server') as {
  startFloor(options: {
    uri: string;
    accessSecret: string;
    siteUrl: string;
    publicUrl: string;
    apiLib?: string;
  }): Promise<{ url: string; stop(): Promise<void> }>;
};
/* eslint-enable @typescript-eslint/no-require-imports */

const blogAnswer = (viewsCount: number, title = 'A title') => ({
  status: 200,
  text: JSON.stringify({
    blog: { _id: '5f0000000000000000000001', title, viewsCount, likesCount: 2, likedByMe: false },
  }),
});

describe('the floor equivalence check', () => {
  it('accepts identical answers', () => {
    const answer = { status: 200, text: '{"user":{"_id":"1","username":"a"}}' };
    expect(compareAnswers(answer, { ...answer })).toEqual([]);
  });

  it('refuses another status, another value, and the same fields in another order', () => {
    expect(compareAnswers({ status: 200, text: '{}' }, { status: 404, text: '{}' })).toEqual([
      'status: ours 200, floor 404',
    ]);
    expect(compareAnswers({ status: 200, text: '{"a":1}' }, { status: 200, text: '{"a":2}' })).toEqual([
      expect.stringMatching(/^body differs at character 5/),
    ]);
    expect(compareAnswers({ status: 200, text: '{"a":1,"b":2}' }, { status: 200, text: '{"b":2,"a":1}' })).toHaveLength(
      1,
    );
  });

  it('expects exactly one view more from the floor on a slug read, and nothing else different', () => {
    expect(compareAnswers(blogAnswer(7), blogAnswer(8), { viewCounted: true })).toEqual([]);
    expect(compareAnswers(blogAnswer(7), blogAnswer(7), { viewCounted: true })).toEqual([
      'viewsCount: ours 7, floor 7 (expected 8)',
    ]);
    expect(compareAnswers(blogAnswer(7), blogAnswer(8, 'Another title'), { viewCounted: true })).toEqual([
      expect.stringMatching(/^body differs/),
    ]);
  });
});

describe('the floor answers like the API', () => {
  const SITE_URL = 'https://blog.example';
  let floor: { url: string; stop(): Promise<void> } | undefined;
  // before useTestApp: the floor stops before the database is dropped
  afterAll(() => floor?.stop());
  const ctx = useTestApp({ env: { SITE_URL } });
  const admin = ctx.signedInAdmin();
  const reader = ctx.signedInUser();
  const blogs = ctx.fixture(async () => {
    await ctx.api.as(admin).put('/users/current').send({ first_name: 'Ada' }).expect(200);
    // searched for "chips": the first and third in their titles (one a draft), the others in their text
    const made = [
      await createBlog(ctx.app, admin, {
        status: 'published',
        tags: ['design'],
        title: 'Fish & <chips>',
        content: `<p>${'A long lead of filler words. '.repeat(8)}Fried <em>chips</em>, and chips again; ${'then more filler. '.repeat(12)}</p>`,
      }),
      await createBlog(ctx.app, admin, {
        status: 'published',
        tags: ['design', 'news'],
        content: '<p>Salt on the chips.</p>',
      }),
      await createBlog(ctx.app, admin, { status: 'draft', title: 'Chips, a draft' }),
      await createBlog(ctx.app, admin, {
        status: 'published',
        tags: ['news'],
        excerpt: 'Its own ]]> excerpt',
        content: '<h2>Café</h2><p>The café sells a <strong>chip</strong> or two.</p>',
      }),
    ];
    await ctx.api.as(reader).post(`/likes/blog/${made[1]._id}`).expect(200);
    return made;
  });
  beforeAll(async () => {
    floor = await startFloor({
      uri: databaseUri(mongoose.connection.name),
      accessSecret: ctx.config.jwt.accessSecret,
      siteUrl: SITE_URL,
      publicUrl: ctx.config.publicUrl,
      apiLib: path.join(__dirname, '..', 'src', 'lib'),
    });
  });

  const answers = async (path: string, user: SignedInUser): Promise<[Answer, Answer]> => {
    const ours = await request(ctx.app).get(`/api/v1${path}`).set('Authorization', `Bearer ${user.accessToken}`);
    const theirs = await fetch(`${floor!.url}/api/v1${path}`, {
      headers: { Authorization: `Bearer ${user.accessToken}` },
    });
    return [
      { status: ours.status, text: ours.text },
      { status: theirs.status, text: await theirs.text() },
    ];
  };
  /** The API's answer to a reader and to an admin (drafts, emails), each equal to the floor's; the API's answers. */
  const alikeForBoth = async (path: string | ((user: SignedInUser) => Promise<string>)) => {
    const ours = [];
    for (const user of [reader, admin]) {
      const [answer, floorAnswer] = await answers(typeof path === 'string' ? path : await path(user), user);
      expect(answer.status).toBeLessThan(500);
      expect(compareAnswers(answer, floorAnswer)).toEqual([]);
      ours.push(JSON.parse(answer.text));
    }
    return ours;
  };

  // the benchmark's read scenarios (bench/run.js), as a reader and as an admin (drafts, emails)
  it.each([
    ['a page', '/blogs?limit=20'],
    ['a second page', '/blogs?limit=2&offset=2'],
    ['a tag page', '/blogs?limit=20&tag=design'],
    ['a tag page with a next cursor, bound to the tag', '/blogs?limit=1&tag=design'],
    ['a card page', '/blogs?limit=20&fields=card'],
    ['a card page of a tag', '/blogs?limit=20&fields=card&tag=news'],
    ['the current user', '/users/current'],
    ['an unknown slug', '/blogs/no-such-blog'],
  ])('%s', async (_name, path) => {
    await alikeForBoth(path);
  });

  // a search (relevance: the title tier, then the others), the floor's snippets made by the same helpers
  // (from src/lib here, from the measured build in the benchmark); pages that start in either tier or cross
  it.each([
    ['a search', '/blogs?q=chips&limit=20'],
    ['a search, in its second tier', '/blogs?q=chips&limit=1&offset=2'],
    ['a search, across its tiers, of cards', '/blogs?q=chips&limit=2&fields=card'],
    ['a search with accents folded and a tag', '/blogs?q=CAF%C3%89&limit=20&tag=news'],
  ])('%s', async (_name, path) => {
    for (const answer of await alikeForBoth(path)) {
      expect(answer.blogs.length).toBeGreaterThan(0);
      for (const blog of answer.blogs) expect(blog.snippet.matches.length).toBeGreaterThan(0);
    }
  });

  it("a search's next cursor, its page ended in either tier", async () => {
    // pages of two: the reader's ends in the second tier, the admin's (the draft first) in the title tier
    const [forReader, forAdmin] = await alikeForBoth('/blogs?q=chips&limit=2');
    expect([forReader.nextCursor, forAdmin.nextCursor]).toEqual([expect.any(String), expect.any(String)]);
  });

  // a second page asked with the first's nextCursor: the floor checks it and answers the next page's
  it.each([
    ['the page after a cursor', 'limit=1'],
    ['the card page of a tag after a cursor', 'limit=1&tag=design&fields=card'],
  ])('%s', async (_name, query) => {
    const afterFirstPage = async (user: SignedInUser) => {
      const first = await ctx.api.as(user).get(`/blogs?${query}`).expect(200);
      return `/blogs?${query}&cursor=${first.body.nextCursor}`;
    };
    for (const answer of await alikeForBoth(afterFirstPage)) expect(answer.blogs).toHaveLength(1);
  });

  it('a slug, with one view more', async () => {
    for (const user of [reader, admin]) {
      const [ours, theirs] = await answers(`/blogs/${blogs[1].slug}`, user);
      expect(ours.status).toBe(200);
      expect(compareAnswers(ours, theirs, { viewCounted: true })).toEqual([]);
    }
  });

  it("the feed, byte for byte the API's", async () => {
    const ours = await request(ctx.app).get('/feed.xml');
    const theirs = await fetch(`${floor!.url}/feed.xml`);
    expect(ours.text).toContain('Fish &amp; &lt;chips&gt;');
    expect(compareAnswers(ours, { status: theirs.status, text: await theirs.text() })).toEqual([]);
  });
});
