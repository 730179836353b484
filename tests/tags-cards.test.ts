/**
 * Tags and cards (issue 21): tags normalised and bounded on the forms, a tag's posts on both lists, the
 * tags with their counts, and each blog's excerpt and reading time, with `fields=card` leaving content out.
 */
import request from 'supertest';
import { PLAIN_TEXT_RULES } from '../src/lib/plain-text';
import { BlogModel } from '../src/models/blog.model';
import { backfillBlogText } from '../src/models/blog.migrations';
import { captureLog } from './helpers/log-capture';
import { createBlog, postBlog } from './helpers/blogs';
import { expectFieldError } from './helpers/expectations';
import { makeImage } from './helpers/images';
import { useTestApp } from './helpers/test-app';
import { registerAdmin, registerUser, type SignedInUser } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;
let admin: SignedInUser;
let reader: SignedInUser;
beforeAll(async () => {
  admin = await registerAdmin(ctx.app);
  reader = await registerUser(ctx.app);
});

const updateBlog = (blogId: string, fields: Record<string, string | string[]>) => {
  const req = api.as(admin).put(`/blogs/${blogId}`);
  for (const [name, value] of Object.entries(fields)) for (const item of [value].flat()) req.field(name, item);
  return req;
};
const idsOf = (body: { blogs: { _id: string }[] }) => body.blogs.map((blog) => blog._id);

describe('tags on the forms', () => {
  it('normalises tags to lowercase URL-friendly names and merges duplicates', async () => {
    const blog = await createBlog(ctx.app, admin, { tags: ['Node JS', ' Café ', 'node-js', 'API'] });
    expect(blog.tags).toEqual(['node-js', 'cafe', 'api']);
  });

  it("reads letters written as compatibility forms as those letters: a PDF's ligature, full-width text", async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published', tags: ['\ufb01nance', '\uff21\uff30\uff29'] });
    expect(blog.tags).toEqual(['finance', 'api']);
    const tagged = await api.as(reader).get('/blogs/').query({ tag: '\ufb01nance' }).expect(200);
    expect(idsOf(tagged.body)).toEqual([blog._id]);
  });

  it('drops symbols rather than spell them out, in ?tag= too: "$money" is "money", "100%" is "100"', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published', tags: ['$money', '100%', 'I♥NY', 'R&D'] });
    expect(blog.tags).toEqual(['money', '100', 'iny', 'r-d']);
    const tagged = await api.as(reader).get('/blogs/').query({ tag: '€money' }).expect(200);
    expect(idsOf(tagged.body)).toEqual([blog._id]);
    expectFieldError(await api.as(reader).get('/blogs/').query({ tag: '%' }), 'tag', 'query');
  });

  it('takes repeated fields and comma-separated ones alike', async () => {
    const repeated = await createBlog(ctx.app, admin, { tags: ['one', 'two'] });
    const commas = await createBlog(ctx.app, admin, { tags: 'one, two' });
    expect(repeated.tags).toEqual(['one', 'two']);
    expect(commas.tags).toEqual(['one', 'two']);
  });

  it('gives every blog tags, empty by default', async () => {
    expect((await createBlog(ctx.app, admin)).tags).toEqual([]);
  });

  it.each([
    ['11 tags', Array.from({ length: 11 }, (_, index) => `tag${index}`)],
    ['more tag fields than a form may carry', Array.from({ length: 25 }, (_, index) => `tag${index}`)],
    ['a tag of 31 characters', ['a'.repeat(31)]],
    ['a tag of 500 characters', ['b'.repeat(500)]],
    ['an empty tag among others', 'one,,two'],
    ['a tag with nothing usable in it', ['!!!']],
    ['a tag of symbols only, which are dropped, not spelled out', ['$%♥']],
  ])('refuses %s with a ValidationError on tags, creating nothing', async (_case, tags) => {
    const before = (await api.as(admin).get('/blogs/').expect(200)).body.total;
    expectFieldError(await postBlog(ctx.app, admin, { tags }), 'tags');
    expect((await api.as(admin).get('/blogs/').expect(200)).body.total).toBe(before);
  });

  it('replaces the tags on update, clears them with an empty field, and keeps them when not sent', async () => {
    const blog = await createBlog(ctx.app, admin, { tags: ['old', 'older'] });
    expect((await updateBlog(blog._id, { tags: ['New', 'newer'] }).expect(200)).body.blog.tags).toEqual([
      'new',
      'newer',
    ]);
    expect((await updateBlog(blog._id, { title: 'Retitled' }).expect(200)).body.blog.tags).toEqual(['new', 'newer']);
    expect((await updateBlog(blog._id, { tags: '' }).expect(200)).body.blog.tags).toEqual([]);
    expectFieldError(await updateBlog(blog._id, { tags: 'x'.repeat(31) }), 'tags');
  });

  it('echoes refused tags as they were sent, not as normalised', async () => {
    const response = await postBlog(ctx.app, admin, { tags: ['Fine', '!!!'] });
    expect(response.status).toBe(400);
    expect(response.body.errors.tags).toMatchObject({ value: '["Fine","!!!"]' });
  });

  it('keeps every other field single: a repeated title is refused', async () => {
    const blog = await createBlog(ctx.app, admin);
    expectFieldError(await updateBlog(blog._id, { title: ['One', 'Two'] }), 'title');
  });
});

describe('a tag’s posts and the tags’ counts', () => {
  let admin2: SignedInUser;
  let published: string;
  let draft: string;
  let otherAuthor: string;
  beforeAll(async () => {
    admin2 = await registerAdmin(ctx.app, 'chief@example.com');
    published = (await createBlog(ctx.app, admin, { status: 'published', tags: ['listed', 'counted'] }))._id;
    draft = (await createBlog(ctx.app, admin, { status: 'draft', tags: ['listed', 'counted', 'hidden'] }))._id;
    otherAuthor = (await createBlog(ctx.app, admin2, { status: 'published', tags: 'counted' }))._id;
  });

  it('lists a tag’s posts, drafts only for admins, the tag normalised as the forms do', async () => {
    const forReader = await api.as(reader).get('/blogs/?tag=Listed').expect(200);
    expect(idsOf(forReader.body)).toEqual([published]);
    expect(forReader.body.total).toBe(1);
    const forAdmin = await api.as(admin).get('/blogs/?tag=listed').expect(200);
    expect(idsOf(forAdmin.body)).toEqual([draft, published]);
  });

  it('lists a tag’s posts of one author', async () => {
    const mine = await api.as(reader).get(`/blogs/user/${admin.user._id}?tag=counted`).expect(200);
    expect(idsOf(mine.body)).toEqual([published]);
    const theirs = await api.as(admin).get(`/blogs/user/${admin2.user._id}?tag=counted`).expect(200);
    expect(idsOf(theirs.body)).toEqual([otherAuthor]);
  });

  it.each([
    ['an empty tag', 'tag='],
    ['a tag of 31 characters', `tag=${'a'.repeat(31)}`],
    ['a tag given twice', 'tag=a&tag=b'],
  ])('refuses %s with a ValidationError on tag, on both lists', async (_case, query) => {
    expectFieldError(await api.as(reader).get(`/blogs/?${query}`), 'tag', 'query');
    expectFieldError(await api.as(reader).get(`/blogs/user/${admin.user._id}?${query}`), 'tag', 'query');
  });

  it('counts published posts only for regular users, every post for admins, most used first', async () => {
    const forReader = await api.as(reader).get('/tags').expect(200);
    const forAdmin = await api.as(admin).get('/tags/').expect(200);
    const count = (body: { tags: { name: string; count: number }[] }, name: string) =>
      body.tags.find((tag) => tag.name === name)?.count;
    expect([
      count(forReader.body, 'counted'),
      count(forReader.body, 'listed'),
      count(forReader.body, 'hidden'),
    ]).toEqual([2, 1, undefined]);
    expect([count(forAdmin.body, 'counted'), count(forAdmin.body, 'listed'), count(forAdmin.body, 'hidden')]).toEqual([
      3, 2, 1,
    ]);
    const counts = forAdmin.body.tags.map((tag: { count: number }) => tag.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(forAdmin.body.total).toBe(forAdmin.body.tags.length);
  });

  it('pages the tags with limit and offset', async () => {
    const all = (await api.as(admin).get('/tags').expect(200)).body;
    const page = (await api.as(admin).get('/tags?limit=2&offset=1').expect(200)).body;
    expect(page).toEqual({ limit: 2, offset: 1, total: all.total, tags: all.tags.slice(1, 3) });
  });

  it('refuses a bad page and needs a token unless public reads are on', async () => {
    expectFieldError(await api.as(admin).get('/tags?limit=0'), 'limit', 'query');
    expectFieldError(await api.as(admin).get('/tags?offset=-1'), 'offset', 'query');
    expect((await request(ctx.app).get('/api/v1/tags')).status).toBe(401);
    const anonymous = await request(ctx.buildApp({ PUBLIC_READS: 'true' }).app)
      .get('/api/v1/tags')
      .expect(200);
    expect(anonymous.body.tags.map((tag: { name: string }) => tag.name)).not.toContain('hidden');
  });
});

describe('cards: excerpt, reading time and fields=card', () => {
  const words = (count: number) => Array.from({ length: count }, (_, index) => `word${index}`).join(' ');

  it('takes the excerpt from the content’s plain text, cut at a word and ended "…"', async () => {
    const blog = await createBlog(ctx.app, admin, {
      content: `<h2>Fish &amp; chips</h2><p>${words(100)}</p><script>never()</script>`,
    });
    const excerpt = blog.excerpt as string;
    expect(excerpt.startsWith('Fish & chips word0 word1')).toBe(true);
    expect(excerpt.endsWith('…')).toBe(true);
    expect(Array.from(excerpt).length).toBeLessThanOrEqual(201);
    expect(excerpt).not.toMatch(/[<>]|never/);
    expect(`${words(100)} `.includes(`${excerpt.slice('Fish & chips '.length, -1)} `)).toBe(true);
  });

  it('keeps a short text whole and counts the reading time in whole minutes, at least one', async () => {
    const short = await createBlog(ctx.app, admin, { content: '<p>Just   a <em>few</em>\n words</p>' });
    expect([short.excerpt, short.readingTime]).toEqual(['Just a few words', 1]);
    const long = await createBlog(ctx.app, admin, { content: `<p>${words(401)}</p>` });
    expect(long.readingTime).toBe(3);
  });

  it('keeps an excerpt the admin sends, also when the content changes, until an empty one hands it back', async () => {
    const blog = await createBlog(ctx.app, admin, { excerpt: '  My own words  ', content: '<p>Body</p>' });
    expect(blog.excerpt).toBe('My own words');
    const edited = await updateBlog(blog._id, { content: `<p>${words(250)}</p>` }).expect(200);
    expect([edited.body.blog.excerpt, edited.body.blog.readingTime]).toEqual(['My own words', 2]);
    const reset = await updateBlog(blog._id, { excerpt: '' }).expect(200);
    expect(reset.body.blog.excerpt.startsWith('word0 word1')).toBe(true);
  });

  it('refuses an excerpt over 300 characters', async () => {
    expectFieldError(await postBlog(ctx.app, admin, { excerpt: 'e'.repeat(301) }), 'excerpt');
  });

  it('lists cards without content, the page under a tenth of the full one’s bytes', async () => {
    const tagged = Array.from({ length: 20 }, () =>
      createBlog(ctx.app, admin, { status: 'published', tags: 'card-page', content: `<p>${words(1500)}</p>` }),
    );
    await Promise.all(tagged);
    const full = await api.as(reader).get('/blogs/?tag=card-page').expect(200);
    const cards = await api.as(reader).get('/blogs/?tag=card-page&fields=card').expect(200);
    expect(cards.body.blogs).toHaveLength(20);
    expect(cards.body.blogs.every((blog: object) => !('content' in blog) && 'excerpt' in blog)).toBe(true);
    expect(idsOf(cards.body)).toEqual(idsOf(full.body));
    expect(Buffer.byteLength(cards.text)).toBeLessThan(Buffer.byteLength(full.text) / 10);
    const ofUser = await api.as(reader).get(`/blogs/user/${admin.user._id}?fields=card&limit=1`).expect(200);
    expect(ofUser.body.blogs[0]).not.toHaveProperty('content');
  });

  it('shows in a card one image sized for a card and the author by name, the status to admins only', async () => {
    const wide = await createBlog(ctx.app, admin, {
      status: 'published',
      tags: 'card-shape',
      banner: await makeImage('png', 1500, 600),
    });
    const narrow = await createBlog(ctx.app, admin, { status: 'published', tags: 'card-shape' });
    const variants = (blog: typeof wide) => (blog.banner as { variants: { url: string; width: number }[] }).variants;
    expect(variants(wide).map((variant) => variant.width)).toEqual([320, 640, 1280, 1500]);
    for (const viewer of [reader, admin]) {
      const { body } = await api.as(viewer).get('/blogs/?tag=card-shape&fields=card').expect(200);
      const [narrowCard, wideCard] = body.blogs;
      expect(Object.keys(wideCard)).toEqual([
        ...['_id', 'title', 'slug', 'excerpt', 'readingTime', 'tags', 'banner', 'author'],
        ...['likesCount', 'commentsCount', ...(viewer === admin ? ['status'] : []), 'publishedAt', 'likedByMe'],
      ]);
      // the narrowest variant at least 640 wide; a banner narrower than that, its own width's
      expect(wideCard.banner).toEqual({ url: variants(wide)[1]!.url, width: 640, height: 256 });
      expect(narrowCard.banner).toEqual({ url: variants(narrow)[0]!.url, width: 64, height: 48 });
      // an author without names goes by their username
      expect(wideCard.author).toEqual({ _id: admin.user._id, name: admin.user.username });
    }
  });

  it('names a card’s author by the names they give, else by their username', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published', tags: 'card-name' });
    const steps: [Record<string, string>, string][] = [
      [{ first_name: 'Ada' }, 'Ada'],
      [{ last_name: 'Lovelace' }, 'Ada Lovelace'],
      [{ first_name: '' }, 'Lovelace'],
      [{ last_name: '' }, admin.user.username],
    ];
    for (const [names, name] of steps) {
      await api.as(admin).put('/users/current').send(names).expect(200);
      const { body } = await api.as(reader).get('/blogs/?tag=card-name&fields=card').expect(200);
      expect(body.blogs.map((card: { _id: string; author: unknown }) => [card._id, card.author])).toEqual([
        [blog._id, { _id: admin.user._id, name }],
      ]);
    }
  });

  it.each(['nonsense', 'card&fields=card'])('refuses fields=%s with a ValidationError on fields', async (value) => {
    expectFieldError(await api.as(reader).get(`/blogs/?fields=${value}`), 'fields', 'query');
    expectFieldError(await api.as(reader).get(`/blogs/user/${admin.user._id}?fields=${value}`), 'fields', 'query');
  });
});

describe('blogs written before tags and cards', () => {
  it('show no tags and a card worked out on reading, until the start-up backfill stores it', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published', content: '<p>Older <b>words</b></p>' });
    await BlogModel.collection.updateOne(
      { _id: new BlogModel({ _id: blog._id })._id },
      { $unset: { tags: '', excerpt: '', readingTime: '', customExcerpt: '', textRules: '' } },
    );
    const before = await api.as(reader).get(`/blogs/${blog.slug}`).expect(200);
    expect([before.body.blog.tags, before.body.blog.excerpt, before.body.blog.readingTime]).toEqual([
      [],
      'Older words',
      1,
    ]);

    const log = captureLog('info');
    await backfillBlogText(log.logger);
    const stored = await BlogModel.findById(blog._id).lean();
    expect([stored?.excerpt, stored?.readingTime, stored?.updatedAt]).toEqual([
      'Older words',
      1,
      new Date(blog.updatedAt as string),
    ]);
    expect(log.entries()).toContainEqual(expect.objectContaining({ level: 'info', count: 1 }));
  });
});

describe('text read out of block tags', () => {
  const GLOSSARY =
    '<section>Welcome to the glossary</section><dl><dt>Kubernetes</dt><dd>Container orchestrator</dd></dl>' +
    '<article>b2</article><aside>c3</aside>';

  it('parts words at every block tag the content may hold, in the excerpt and for search', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published', content: GLOSSARY });
    expect(blog.excerpt).toBe('Welcome to the glossary Kubernetes Container orchestrator b2 c3');
    const found = await api.as(reader).get('/blogs/').query({ q: 'kubernetes' }).expect(200);
    expect(idsOf(found.body)).toEqual([blog._id]);
  });

  it('is worked out again at start-up for blogs stored by older rules; an excerpt the admin wrote stays', async () => {
    const derived = await createBlog(ctx.app, admin, { status: 'published', content: GLOSSARY });
    const custom = await createBlog(ctx.app, admin, { status: 'published', content: GLOSSARY, excerpt: 'Mine' });
    // as the rules before <section>, <dt> and <dd> parted words stored them
    const older = { excerpt: 'Welcome to the glossaryKubernetesContainer orchestratorb2c3', textRules: 1 };
    await BlogModel.updateOne({ _id: derived._id }, { $set: { ...older, searchTerms: ['welcom'] } });
    await BlogModel.updateOne({ _id: custom._id }, { $set: { textRules: 1, searchTerms: ['welcom'] } });
    const log = captureLog('info');

    await backfillBlogText(log.logger);

    const stored = await BlogModel.find({ _id: { $in: [derived._id, custom._id] } }).select('+textRules');
    const byId = new Map(stored.map((blog) => [String(blog._id), blog]));
    expect(byId.get(derived._id)?.excerpt).toBe('Welcome to the glossary Kubernetes Container orchestrator b2 c3');
    expect(byId.get(custom._id)?.excerpt).toBe('Mine');
    expect(stored.map((blog) => blog.get('textRules'))).toEqual([PLAIN_TEXT_RULES, PLAIN_TEXT_RULES]);
    const found = await api.as(reader).get('/blogs/').query({ q: 'kubernetes orchestrator' }).expect(200);
    expect(idsOf(found.body)).toEqual(expect.arrayContaining([derived._id, custom._id]));
    expect(log.entries()).toContainEqual(expect.objectContaining({ level: 'info', count: 2 }));
  });
});
