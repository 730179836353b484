// @ts-check
/**
 * Realistic data for the benchmark, written with bulk inserts through the official driver, in the
 * shape the API's Mongoose models give their documents: 200 users (the first 10 admins, who write the
 * blogs), blogs with 2–8 KB of HTML, 80% published, likes and comments spread over them with their
 * counters matching. Deterministic (seeded PRNG), so two runs read the same data.
 */
'use strict';
const path = require('node:path');
const { ObjectId } = require('mongodb');
const { eng: ENGLISH_STOP_WORDS } = require('stopword');
const stem = require('wink-porter2-stemmer');

/** The built API's pure helpers (`npm run bench` builds it before it seeds). */
const API_LIB = path.join(__dirname, '..', '..', 'dist', 'lib');

const USERS = 200;
const ADMINS = 10;
const BATCH = 1000;
/** Index of the regular user the read scenarios sign in as; it likes about a third of the blogs. */
const READER = ADMINS;

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna ' +
  'aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure ' +
  'in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident'
).split(' ');

function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const userEmail = (index) => `bench-user-${index}@example.com`;

function sentence(random, words) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]);
  return out.join(' ');
}

/** 2–8 KB of the HTML the sanitizer lets through: paragraphs, a heading, emphasis, a link, a list. */
function blogContent(random) {
  const target = 2048 + Math.floor(random() * 6144);
  let html = `<h2>${sentence(random, 5)}</h2>`;
  while (html.length < target) {
    const kind = random();
    if (kind < 0.7)
      html += `<p>${sentence(random, 20)} <strong>${sentence(random, 3)}</strong> ${sentence(random, 25)}.</p>`;
    else if (kind < 0.85)
      html += `<p>${sentence(random, 10)} <a href="https://example.com/${Math.floor(random() * 1e6)}">${sentence(random, 2)}</a>.</p>`;
    else html += `<ul><li>${sentence(random, 6)}</li><li>${sentence(random, 6)}</li></ul>`;
  }
  return html;
}

const TAGS = ['news', 'javascript', 'databases', 'design', 'devops', 'security', 'testing', 'career'];

/** The HTML's text as src/lib/plain-text.ts makes it: without tags (this HTML has no entities). */
const plainTextOf = (html) =>
  html
    .replace(/<(\/?)(p|li|ul|h2)>/g, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The card fields the API stores with every blog it writes (src/lib/plain-text.ts): the text's first
 * 200 characters cut at a word, and minutes at 200 words.
 */
function cardOf(text) {
  const words = text.split(' ').length;
  const cut = text.slice(0, 201);
  const excerpt = text.length <= 200 ? text : `${cut.slice(0, cut.lastIndexOf(' ')).replace(/[\s.,;:!?-]+$/, '')}…`;
  return { excerpt, readingTime: Math.max(1, Math.ceil(words / 200)) };
}

/**
 * The search terms the API stores with every blog (src/lib/search-text.ts, with the same stop words and
 * stemmer): the distinct terms of title and text, then the title's again marked `t:`. Each word's term
 * is worked out once per run: the seed's text has a few dozen distinct words, repeated millions of times.
 */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;
const STOP_WORDS = new Set(ENGLISH_STOP_WORDS);
const termOfWord = new Map();
function termOf(word) {
  if (!termOfWord.has(word)) {
    const folded = word
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase();
    termOfWord.set(word, folded.length > 40 || STOP_WORDS.has(folded) ? undefined : stem(folded));
  }
  return termOfWord.get(word);
}
function termsOf(text) {
  const terms = new Set();
  for (const [word] of text.matchAll(WORD)) {
    const term = termOf(word);
    if (term) terms.add(term);
  }
  return [...terms];
}
function searchTermsOf(title, text) {
  const titleTerms = termsOf(title);
  return [...new Set([...titleTerms, ...termsOf(text)]), ...titleTerms.map((term) => `t:${term}`)];
}

/** The users; returns their ids (index = user number). */
async function seedUsers(db, passwordHash) {
  const random = prng(1);
  const base = Date.UTC(2025, 0, 1);
  const users = Array.from({ length: USERS }, (_, index) => {
    const createdAt = new Date(base + index * 3_600_000);
    const user = {
      _id: new ObjectId(),
      username: `benchuser${index}`,
      email: userEmail(index),
      password: passwordHash,
      role: index < ADMINS ? 'admin' : 'user',
      socialLinks: random() < 0.5 ? { website: `https://example.com/~u${index}`, x: `https://x.com/u${index}` } : {},
      deletingAt: null,
      createdAt,
      updatedAt: createdAt,
      __v: 0,
    };
    if (random() < 0.7) Object.assign(user, { firstName: `First${index}`, lastName: `Last${index}` });
    return user;
  });
  await db.collection('users').insertMany(users, { ordered: false });
  return users.map((user) => user._id);
}

/**
 * Blogs number `from` to `to - 1`, with their likes and comments. Blog n is created n minutes after
 * 2025-01-01, so later batches (the growth step) are the newest and fill the first pages.
 */
async function seedBlogs(db, userIds, from, to) {
  const { PLAIN_TEXT_RULES } = require(path.join(API_LIB, 'plain-text'));
  const random = prng(1000 + from);
  const base = Date.UTC(2025, 0, 1);
  const publishedSlugs = [];
  for (let start = from; start < to; start += BATCH) {
    const blogs = [];
    const likes = [];
    const comments = [];
    for (let n = start; n < Math.min(to, start + BATCH); n++) {
      const _id = new ObjectId();
      const createdAt = new Date(base + n * 60_000);
      const published = random() < 0.8;
      const slug = `bench-post-${n}-${sentence(random, 3).replace(/ /g, '-')}`;
      const likers = new Set();
      const likeCount = Math.floor(random() * 8);
      for (let i = 0; i < likeCount; i++) likers.add(ADMINS + 1 + Math.floor(random() * (USERS - ADMINS - 1)));
      if (random() < 0.35) likers.add(READER);
      for (const user of likers) likes.push({ _id: new ObjectId(), blog: _id, user: userIds[user], createdAt, __v: 0 });
      const commentCount = Math.floor(random() * 5);
      for (let i = 0; i < commentCount; i++) {
        comments.push({
          _id: new ObjectId(),
          blog: _id,
          author: userIds[Math.floor(random() * USERS)],
          content: sentence(random, 15),
          createdAt,
          updatedAt: createdAt,
          __v: 0,
        });
      }
      const content = blogContent(random);
      const title = `Bench post ${n}: ${sentence(random, 4)}`;
      const text = plainTextOf(content);
      blogs.push({
        _id,
        title,
        slug,
        content,
        ...cardOf(text),
        customExcerpt: false,
        // without them the API's start-up backfill would rewrite every blog while the scenarios run
        searchTerms: searchTermsOf(title, text),
        // the version of the rules these were worked out by: any other, and the backfill redoes them
        textRules: PLAIN_TEXT_RULES,
        // one or two of a few tags, as a blog's would be
        tags: [...new Set([TAGS[n % TAGS.length], TAGS[(n * 3) % TAGS.length]])],
        banner: {
          url: `http://localhost:3000/uploads/banners/${_id}.png`,
          width: 1200,
          height: 630,
          key: `${_id}.png`,
          // as the API stores them beside the banner (src/services/storage/local-storage.ts)
          variants: [320, 640, 1200].map((width) => ({
            url: `http://localhost:3000/uploads/banners/${_id}.png.${width}w.webp`,
            width,
            height: Math.round((630 * width) / 1200),
            format: 'webp',
          })),
        },
        author: userIds[Math.floor(random() * ADMINS)],
        viewsCount: Math.floor(random() * 1000),
        likesCount: likers.size,
        commentsCount: commentCount,
        status: published ? 'published' : 'draft',
        publishedAt: published ? createdAt : null,
        createdAt,
        updatedAt: createdAt,
        __v: 0,
      });
      if (published) publishedSlugs.push(slug);
    }
    await Promise.all([
      db.collection('blogs').insertMany(blogs, { ordered: false }),
      likes.length && db.collection('likes').insertMany(likes, { ordered: false }),
      comments.length && db.collection('comments').insertMany(comments, { ordered: false }),
    ]);
  }
  return publishedSlugs;
}

/**
 * Throws unless the first `sample` seeded blogs carry the excerpt, reading time, search terms and rules
 * version that the API itself works out from their title and content. Were they to differ, the API's
 * start-up backfill would rewrite every blog while the scenarios run, and its CPU would be measured
 * with that work in it.
 */
async function checkSeedAgainstApi(db, sample = 20) {
  const { plainTextOf, excerptOf, readingTimeOf, PLAIN_TEXT_RULES } = require(path.join(API_LIB, 'plain-text'));
  const { searchTermsOf: apiSearchTermsOf } = require(path.join(API_LIB, 'search-text'));
  const blogs = await db
    .collection('blogs')
    .find({}, { limit: sample, sort: { _id: 1 } })
    .toArray();
  for (const blog of blogs) {
    const text = plainTextOf(blog.content);
    const derived = {
      excerpt: excerptOf(text),
      readingTime: readingTimeOf(text),
      searchTerms: apiSearchTermsOf(blog.title, text),
      textRules: PLAIN_TEXT_RULES,
    };
    for (const [field, value] of Object.entries(derived)) {
      if (JSON.stringify(blog[field]) !== JSON.stringify(value))
        throw new Error(`seed: blog ${blog._id} has a ${field} other than the API's (${JSON.stringify(blog[field])})`);
    }
  }
}

module.exports = { seedUsers, seedBlogs, checkSeedAgainstApi, userEmail, USERS, ADMINS, READER };
