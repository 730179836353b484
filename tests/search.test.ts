/**
 * Search (issue 21): `?q=` on both lists finds the blogs whose title or text holds every word, stemmed and
 * with accents folded, title matches first; each hit carries a plain-text snippet with the matched words'
 * offsets; it combines with `tag` and `fields=card`, hides drafts as lists do, and refuses bad queries.
 */
import { BlogModel } from '../src/models/blog.model';
import { backfillBlogText } from '../src/models/blog.migrations';
import { captureLog } from './helpers/log-capture';
import { createBlog } from './helpers/blogs';
import { expectFieldError } from './helpers/expectations';
import { useTestApp } from './helpers/test-app';
import type { SignedInUser } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();
const reader = ctx.signedInUser();

interface Hit {
  _id: string;
  title: string;
  content?: string;
  snippet?: { text: string; matches: [number, number][] };
}
const search = async (q: string, as: SignedInUser = reader, extra: Record<string, string> = {}) =>
  (
    await api
      .as(as)
      .get('/blogs/')
      .query({ q, ...extra })
      .expect(200)
  ).body as { total: number | null; blogs: Hit[]; nextCursor: string | null };
const idsOf = (page: { blogs: Hit[] }) => page.blogs.map((blog) => blog._id);
/** The words a snippet marks, read back through its offsets. */
const markedWords = (hit: Hit) => hit.snippet!.matches.map(([start, end]) => hit.snippet!.text.slice(start, end));
const publish = (title: string, content: string, tags?: string[]) =>
  createBlog(ctx.app, admin, { title, content, status: 'published', tags });

describe('finding posts by their words', () => {
  it('matches stems: "running" finds a post that "runs"', async () => {
    const blog = await publish('Morning habits', '<p>She runs every morning before work.</p>');
    const page = await search('running');
    expect(idsOf(page)).toEqual([blog._id]);
    expect(markedWords(page.blogs[0])).toEqual(['runs']);
  });

  it('folds accents both ways: "cafe" finds "café" and "Café" finds "cafe"', async () => {
    const accented = await publish('Corner spots', '<p>The best <em>café</em> in town.</p>');
    const plain = await publish('Cafe reviews', '<p>Plain words only.</p>');
    expect(idsOf(await search('cafe')).sort()).toEqual([accented._id, plain._id].sort());
    expect(idsOf(await search('CAFÉ')).sort()).toEqual([accented._id, plain._id].sort());
  });

  it('reads compatibility forms as their letters: "finance" finds the ligature of a PDF, "hedgehog" full-width letters', async () => {
    const ligature = await publish('Quarterly notes', '<p>The ﬁnance team met.</p>');
    const fullWidth = await publish('Ｗｉｄｅ ｈéｄｇｅｈｏｇｓ', '<p>Typed on a phone keyboard.</p>');

    const found = await search('finance');
    expect(idsOf(found)).toEqual([ligature._id]);
    expect(markedWords(found.blogs[0])).toEqual(['ﬁnance']);
    expect(idsOf(await search('ﬁnance'))).toEqual([ligature._id]);
    expect(idsOf(await search('wide hedgehog'))).toEqual([fullWidth._id]);
  });

  it('requires every word, in the title or the text', async () => {
    const both = await publish('Gardening tomatoes', '<p>Water them with patience.</p>');
    await publish('Gardening roses', '<p>Prune them in spring.</p>');
    expect(idsOf(await search('gardening tomatoes'))).toEqual([both._id]);
    expect(idsOf(await search('tomato patience'))).toEqual([both._id]);
    expect((await search('tomatoes roses')).total).toBe(0);
  });

  it('puts posts whose title holds every word first, newest first within each group, with total and paging', async () => {
    const textOld = await publish('An old note', '<p>About quantum kittens.</p>');
    const titleOld = await publish('Quantum kittens explained', '<p>Nothing more.</p>');
    const textNew = await publish('A new note', '<p>More quantum kittens here.</p>');
    const titleNew = await publish('Kittens, quantum ones', '<p>Again.</p>');
    const expected = [titleNew._id, titleOld._id, textNew._id, textOld._id];
    const page = await search('quantum kitten');
    expect(page.total).toBe(4);
    expect(idsOf(page)).toEqual(expected);
    // a page that straddles the two groups, and one inside the second
    expect(idsOf(await search('quantum kitten', reader, { limit: '2', offset: '1' }))).toEqual(expected.slice(1, 3));
    const last = await search('quantum kitten', reader, { limit: '5', offset: '3' });
    expect([last.total, idsOf(last)]).toEqual([4, expected.slice(3)]);
    // without the total, the same pages
    const uncounted = await search('quantum kitten', reader, { limit: '2', offset: '1', count: 'false' });
    expect([uncounted.total, idsOf(uncounted)]).toEqual([null, expected.slice(1, 3)]);
    const lastUncounted = await search('quantum kitten', reader, { limit: '5', offset: '3', count: 'false' });
    expect([lastUncounted.total, idsOf(lastUncounted)]).toEqual([null, expected.slice(3)]);
  });

  it('gives each hit a plain-text snippet around the first match, with offsets on the matched words', async () => {
    const filler = 'Lorem ipsum dolor sit amet. '.repeat(12);
    await publish('Long read', `<p>${filler}</p><p>Then <b>zebras</b> &amp; more Zebra crossings.</p><p>${filler}</p>`);
    const [hit] = (await search('zebra crossing')).blogs;
    expect(hit.snippet!.text).not.toMatch(/[<>]/);
    expect(hit.snippet!.text.length).toBeLessThanOrEqual(170);
    expect(hit.snippet!.text.startsWith('…')).toBe(true);
    expect(markedWords(hit)).toEqual(['zebras', 'Zebra', 'crossings']);
    expect(hit.snippet!.text).toContain('zebras & more');
  });

  it('never cuts a snippet inside a character, where there is no space to cut at', async () => {
    // 11 + 14 × 10 + 8 = 159 UTF-16 units before an emoji's second half: the snippet's length falls inside it
    await publish('Trip report', `<p>Osaka!aaaaa${'楽しい旅行でした😀'.repeat(40)}</p>`);
    const [hit] = (await search('osaka')).blogs;
    const { text } = hit.snippet!;
    // a lone half would be U+FFFD once encoded: a strict JSON parser (jq) refuses the whole page for it
    expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text);
    expect(text).toMatch(/^Osaka!aaaaa楽しい旅行でした😀.*でした…$/u);
    expect(markedWords(hit)).toEqual(['Osaka']);

    // nor between a letter and its accent: "é" written as "e" and U+0301 stays whole
    await publish('Accents', `<p>quokka ${'e\u0301'.repeat(200)}</p>`);
    const [accented] = (await search('quokka')).blogs;
    expect(accented.snippet!.text.normalize('NFC')).toMatch(/^quokka é+…$/);
    // and a character longer than the look-back (an emoji and 200 accents) is cut, but not inside a surrogate
    // pair: 8 + 87 units put the emoji's second half where the look-back starts
    await publish('Joined', `<p>wallaby!${'a'.repeat(87)}👍${'\u0301'.repeat(200)}</p>`);
    const { text: cutShort } = (await search('wallaby')).blogs[0].snippet!;
    expect(Buffer.from(cutShort, 'utf8').toString('utf8')).toBe(cutShort);
  });

  it('takes the snippet from the title when only the title matched', async () => {
    await publish('Volcano diaries', '<p>Nothing about it here.</p>');
    const [hit] = (await search('volcanoes')).blogs;
    expect(hit.snippet).toEqual({ text: 'Volcano diaries', matches: [[0, 7]] });
  });

  it('leaves snippets and stored terms out of answers that are not searches', async () => {
    const blog = await publish('Ordinary post', '<p>Ordinary words.</p>');
    const listed = (await api.as(reader).get('/blogs/').expect(200)).body.blogs.find((b: Hit) => b._id === blog._id);
    expect(listed).not.toHaveProperty('snippet');
    expect(blog).not.toHaveProperty('searchTerms');
    expect((await search('ordinary')).blogs[0]).not.toHaveProperty('searchTerms');
  });
});

describe('search with the other list options', () => {
  it('combines with tag, fields=card and the author list', async () => {
    const tagged = await publish('Sailing basics', '<p>Knots and sailing.</p>', ['sea']);
    await publish('Sailing further', '<p>Open water.</p>', ['ocean']);
    const page = await search('sailing', reader, { tag: 'sea', fields: 'card' });
    expect(idsOf(page)).toEqual([tagged._id]);
    expect(page.blogs[0]).not.toHaveProperty('content');
    expect(markedWords(page.blogs[0])).toEqual(['sailing']);
    const ofAuthor = await api.as(reader).get(`/blogs/user/${admin.user._id}`).query({ q: 'sailing' }).expect(200);
    expect(ofAuthor.body.total).toBe(2);
    const ofOther = await api.as(reader).get(`/blogs/user/${reader.user._id}`).query({ q: 'sailing' }).expect(200);
    expect(ofOther.body.total).toBe(0);
  });

  it('orders by a given sort instead of relevance, and then pages by cursor', async () => {
    const liked = await publish('Sorted lantern', 'A lantern with likes');
    const plain = await publish('Plain', 'Another lantern');
    await api.as(reader).post(`/likes/blog/${liked._id}`).expect(200);

    const first = await search('lantern', reader, { sort: '-likesCount', limit: '1' });
    expect(first.blogs[0]).toMatchObject({ _id: liked._id, snippet: expect.any(Object) });
    const next = await search('lantern', reader, { sort: '-likesCount', limit: '1', cursor: first.nextCursor! });
    expect(idsOf(next)).toEqual([plain._id]);
    expect(next.nextCursor).toBeNull();
  });

  it('hides drafts from readers and shows them to admins, as lists do', async () => {
    const draft = await createBlog(ctx.app, admin, { title: 'Secret pangolin plans', status: 'draft' });
    expect((await search('pangolin')).total).toBe(0);
    expect(idsOf(await search('pangolin', admin))).toEqual([draft._id]);
  });

  it('finds what an update wrote, and no longer what it replaced', async () => {
    const blog = await publish('Walrus facts', '<p>Tusks.</p>');
    await api
      .as(admin)
      .put(`/blogs/${blog._id}`)
      .field('title', 'Narwhal facts')
      .field('content', '<p>Horns.</p>')
      .expect(200);
    expect((await search('walrus')).total).toBe(0);
    expect((await search('tusk')).total).toBe(0);
    expect(idsOf(await search('narwhal horn'))).toEqual([blog._id]);
  });

  it('finds older blogs once the start-up backfill has given them their terms', async () => {
    const blog = await publish('Heron sightings', '<p>By the lake.</p>');
    await BlogModel.updateOne({ _id: blog._id }, { $unset: { searchTerms: 1, textRules: 1 } }, { timestamps: false });
    expect((await search('heron')).total).toBe(0);
    const log = captureLog();
    await backfillBlogText(log.logger);
    expect(idsOf(await search('heron lake'))).toEqual([blog._id]);
  });
});

describe('scrolling a search by cursor', () => {
  /** The pages after `first`, each asked for with the previous one's cursor, until there is none. */
  async function pagesAfter(first: Awaited<ReturnType<typeof search>>, q: string, extra: Record<string, string>) {
    const pages = [];
    for (let page = first; page.nextCursor !== null;) {
      page = await search(q, reader, { ...extra, cursor: page.nextCursor });
      pages.push(idsOf(page));
    }
    return pages;
  }

  it.each([2, 3])('goes through both relevance tiers, pages of %i, in the order offsets give', async (limit) => {
    const word = `marmot${limit}`;
    // three whose title holds the word, three whose text alone does, written alternately
    for (let i = 0; i < 3; i++) {
      await publish(`The ${word} ${i}`, '<p>Nothing else.</p>');
      await publish(`Mountain note ${i}`, `<p>A ${word} here.</p>`);
    }
    const order = idsOf(await search(word));
    expect(order).toHaveLength(6);
    const first = await search(word, reader, { limit: String(limit) });
    expect(idsOf(first)).toEqual(order.slice(0, limit));
    const rest = await pagesAfter(first, word, { limit: String(limit) });
    // pages of 2 end mid-tier, then astride the tiers; pages of 3 end exactly where the title tier does
    expect([idsOf(first), ...rest]).toEqual(
      Array.from({ length: 6 / limit }, (_, i) => order.slice(i * limit, (i + 1) * limit)),
    );
  });

  it('neither shifts nor repeats later pages when matching posts are published mid-scroll', async () => {
    for (let i = 0; i < 2; i++) {
      await publish(`Ibex trail ${i}`, '<p>Steep.</p>');
      await publish(`Alpine note ${i}`, '<p>An ibex on the ridge.</p>');
    }
    const [title1, title0, text1, text0] = idsOf(await search('ibex'));
    const first = await search('ibex', reader, { limit: '1', count: 'false' });
    expect([first.total, idsOf(first)]).toEqual([null, [title1]]);
    // the newest of each tier: one lands above the first page, the other where the second tier begins
    await publish('Ibex news', '<p>Fresh.</p>');
    const lateText = await publish('Late alpine note', '<p>Another ibex.</p>');
    expect(idsOf(await search('ibex', reader, { limit: '1', offset: '1' }))).toEqual([title1]);
    expect((await pagesAfter(first, 'ibex', { limit: '1', count: 'false' })).flat()).toEqual([
      title0,
      lateText._id,
      text1,
      text0,
    ]);
  });

  it('refuses a cursor given to another search, or to the same words in another order, and the reverse', async () => {
    for (let i = 0; i < 2; i++) await publish(`Gecko ${i}`, '<p>A gecko and a lizard.</p>');
    const byRelevance = (await search('gecko', reader, { limit: '1' })).nextCursor!;
    const bySort = (await search('gecko', reader, { limit: '1', sort: '-createdAt' })).nextCursor!;
    expect([byRelevance, bySort]).toEqual([expect.any(String), expect.any(String)]);
    for (const [q, cursor, extra] of [
      ['lizard', byRelevance, {}],
      ['gecko', byRelevance, { sort: '-createdAt' }],
      ['gecko', bySort, {}],
    ] as const)
      expectFieldError(
        await api
          .as(reader)
          .get('/blogs/')
          .query({ q, cursor, ...extra }),
        'cursor',
        'query',
      );
  });
});

describe('bad search input', () => {
  it.each([
    ['empty', ''],
    ['only spaces', '   '],
    ['over 200 characters', 'word '.repeat(41)],
    ['only stop words', 'the and of'],
    ['only punctuation', '?!.*'],
  ])('refuses a query that is %s with a ValidationError on q', async (_case, q) => {
    expectFieldError(await api.as(reader).get('/blogs/').query({ q }), 'q', 'query');
  });

  it('refuses q given twice, on the author list too', async () => {
    const twice = await api.as(reader).get('/blogs/?q=a1&q=b2').expect(400);
    expect(twice.body.errors.q).toMatchObject({ location: 'query', msg: 'Search must be given once' });
    expectFieldError(await api.as(reader).get(`/blogs/user/${admin.user._id}?q=the`), 'q', 'query');
  });

  it('treats regular-expression characters as text, never as a pattern', async () => {
    const blog = await publish('Regex (a+)+ trap', '<p>Literal .* and [x] here.</p>');
    expect(idsOf(await search('(a+)+ trap'))).toEqual([blog._id]);
    expect((await search('.* xylophone$')).total).toBe(0);
  });
});
