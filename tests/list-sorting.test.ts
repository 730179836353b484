/**
 * Sorting, filters and cursors on the blog lists (issue 21): each sort key both ways with ties broken
 * by _id, the admin-only status filter, author and publication dates, combined with tag; cursor walks
 * that neither skip nor repeat when posts are written or published between pages; cursors bound to their
 * query and signed; count=false; and every bad parameter a 400 in the spec's shape.
 */
import { BlogModel } from '../src/models/blog.model';
import { BLOG_SORT_KEYS } from '../src/schemas/blog';
import { createBlog } from './helpers/blogs';
import { expectFieldError } from './helpers/expectations';
import { useTestApp } from './helpers/test-app';
import { registerAdmin, type SignedInUser } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();
const reader = ctx.signedInUser();
const idsOf = (body: { blogs: { _id: string }[] }) => body.blogs.map((blog) => blog._id);

interface Stored {
  _id: string;
  status: string;
  createdAt: Date;
  publishedAt: Date | null;
  likesCount: number;
  viewsCount: number;
}

/** The order the API must give, worked out here: null lowest (as MongoDB sorts), then _id the same way. */
function expectedOrder(blogs: Stored[], key: string): string[] {
  const field = key.replace(/^-/, '') as keyof Stored;
  const sign = key.startsWith('-') ? -1 : 1;
  const rank = (value: unknown) =>
    value === null ? -Infinity : value instanceof Date ? value.getTime() : Number(value);
  return [...blogs]
    .sort((a, b) => sign * (rank(a[field]) - rank(b[field]) || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)))
    .map((blog) => blog._id);
}

const day = (n: number) => new Date(Date.UTC(2025, 0, n));
/** Five posts of tag `sorted` with ties on likes and views and one never-published draft. */
const SEEDS = [
  { status: 'published', createdAt: day(1), publishedAt: day(10), likesCount: 5, viewsCount: 1 },
  { status: 'published', createdAt: day(2), publishedAt: day(3), likesCount: 5, viewsCount: 9 },
  { status: 'draft', createdAt: day(3), publishedAt: null, likesCount: 0, viewsCount: 0 },
  { status: 'published', createdAt: day(4), publishedAt: day(5), likesCount: 1, viewsCount: 9 },
  { status: 'draft', createdAt: day(5), publishedAt: day(6), likesCount: 7, viewsCount: 3 },
];

let second: SignedInUser;
let stored: Stored[];
beforeAll(async () => {
  second = await registerAdmin(ctx.app, 'chief@example.com');
  stored = [];
  for (const [index, seed] of SEEDS.entries()) {
    const author = index === 3 ? second : admin;
    const blog = await createBlog(ctx.app, author, { status: 'published', tags: ['sorted'] });
    await BlogModel.collection.updateOne({ _id: new BlogModel.base.Types.ObjectId(blog._id) }, { $set: seed });
    stored.push({ _id: blog._id, ...seed });
  }
});

describe('sort', () => {
  it.each(BLOG_SORT_KEYS)('orders by %s, ties by _id, for admins and readers alike', async (key) => {
    const forAdmin = await api.as(admin).get(`/blogs/?tag=sorted&sort=${key}`).expect(200);
    expect(idsOf(forAdmin.body)).toEqual(expectedOrder(stored, key));
    const forReader = await api.as(reader).get(`/blogs/?tag=sorted&sort=${key}&fields=card`).expect(200);
    expect(idsOf(forReader.body)).toEqual(
      expectedOrder(
        stored.filter((blog) => blog.status === 'published'),
        key,
      ),
    );
  });

  it('defaults to the spec’s order, creation date newest first', async () => {
    const response = await api.as(admin).get('/blogs/?tag=sorted').expect(200);
    expect(idsOf(response.body)).toEqual(expectedOrder(stored, '-createdAt'));
  });
});

describe('filters', () => {
  const only = (predicate: (blog: Stored, index: number) => boolean) =>
    expectedOrder(stored.filter(predicate), '-createdAt');

  it.each([
    ['status=draft for admins', 'status=draft', (blog: Stored) => blog.status === 'draft'],
    ['status=published for admins', 'status=published', (blog: Stored) => blog.status === 'published'],
    ['publishedAfter (exclusive)', 'publishedAfter=2025-01-05T00:00:00Z', (blog: Stored) => blog.publishedAt! > day(5)],
    [
      'both publication bounds',
      'publishedAfter=2025-01-04T00:00:00.000Z&publishedBefore=2025-01-10T00:00:00Z',
      (blog: Stored) => blog.publishedAt! > day(4) && blog.publishedAt! < day(10),
    ],
  ])('lists by %s, combined with tag', async (_case, query, predicate) => {
    const response = await api.as(admin).get(`/blogs/?tag=sorted&${query}`).expect(200);
    expect(idsOf(response.body)).toEqual(only(predicate));
    expect(response.body.total).toBe(only(predicate).length);
  });

  it('lists one author’s posts by author=, on both lists, with a tag and a sort', async () => {
    const query = `tag=sorted&author=${second.user._id}&sort=likesCount`;
    expect(idsOf((await api.as(reader).get(`/blogs/?${query}`).expect(200)).body)).toEqual([stored[3]._id]);
    const path = `/blogs/user/${second.user._id}?${query}`;
    expect(idsOf((await api.as(reader).get(path).expect(200)).body)).toEqual([stored[3]._id]);
    const disagreeing = await api.as(admin).get(`/blogs/user/${admin.user._id}?${query}`).expect(200);
    expect(disagreeing.body).toMatchObject({ total: 0, blogs: [], nextCursor: null });
  });

  it('lets readers ask for published posts, and refuses them drafts with a 400 on status', async () => {
    const published = await api.as(reader).get('/blogs/?tag=sorted&status=published').expect(200);
    expect(idsOf(published.body)).toEqual(only((blog) => blog.status === 'published'));
    expectFieldError(await api.as(reader).get('/blogs/?status=draft'), 'status', 'query');
    expectFieldError(await api.as(reader).get(`/blogs/user/${admin.user._id}?status=draft`), 'status', 'query');
  });

  it('skips the count with count=false: total is null then, and only then', async () => {
    const uncounted = await api.as(admin).get('/blogs/?tag=sorted&count=false&limit=2').expect(200);
    expect(uncounted.body.total).toBeNull();
    expect(uncounted.body.blogs).toHaveLength(2);
    const counted = await api.as(admin).get('/blogs/?tag=sorted&count=true').expect(200);
    expect(counted.body.total).toBe(SEEDS.length);
  });
});

describe('cursors', () => {
  /** Pages through a list by its cursors, doing `between` after the first page. */
  async function walk(user: SignedInUser, query: string, between: () => Promise<unknown>) {
    const seen: string[] = [];
    let response = await api.as(user).get(`/blogs/?${query}`).expect(200);
    seen.push(...idsOf(response.body));
    await between();
    while (response.body.nextCursor) {
      const cursor = encodeURIComponent(response.body.nextCursor);
      response = await api.as(user).get(`/blogs/?${query}&cursor=${cursor}`).expect(200);
      seen.push(...idsOf(response.body));
    }
    return seen;
  }

  it('walks a list page by page with nothing skipped or repeated while posts are written between pages', async () => {
    const walked: string[] = [];
    for (let i = 0; i < 5; i++)
      walked.push((await createBlog(ctx.app, admin, { status: 'published', tags: 'walk' }))._id);
    const seen = await walk(reader, 'tag=walk&limit=2', () =>
      createBlog(ctx.app, admin, { status: 'published', tags: 'walk' }),
    );
    expect(seen).toEqual([...walked].reverse());
  });

  it('keeps later pages by publication date when a draft is published between pages', async () => {
    const posts: string[] = [];
    for (let i = 0; i < 4; i++)
      posts.push((await createBlog(ctx.app, admin, { status: 'published', tags: 'news-walk' }))._id);
    const draft = await createBlog(ctx.app, admin, { tags: 'news-walk' });
    const seen = await walk(reader, 'tag=news-walk&sort=-publishedAt&limit=3', () =>
      api.as(admin).put(`/blogs/${draft._id}`).field('status', 'published').expect(200),
    );
    expect(seen).toEqual([...posts].reverse());
  });

  it('walks drafts without a publication date too (admins, sorted by publishedAt both ways)', async () => {
    for (const key of ['publishedAt', '-publishedAt']) {
      const seen = await walk(admin, `tag=sorted&sort=${key}&limit=1&count=false`, async () => undefined);
      expect(seen).toEqual(expectedOrder(stored, key));
    }
  });

  it('walks an admin’s every post, drafts included, by creation date both ways', async () => {
    const everything = (await BlogModel.find({}, 'status createdAt').lean()).map((blog) => ({
      ...blog,
      _id: String(blog._id),
    })) as unknown as Stored[];
    expect(everything.some((blog) => blog.status === 'draft')).toBe(true);
    for (const key of ['-createdAt', 'createdAt']) {
      const seen = await walk(admin, `sort=${key}&limit=3`, async () => undefined);
      expect(seen).toEqual(expectedOrder(everything, key));
    }
  });

  it('answers nextCursor null on the last page, on both lists', async () => {
    expect((await api.as(admin).get('/blogs/?tag=sorted').expect(200)).body.nextCursor).toBeNull();
    const ofUser = await api.as(admin).get(`/blogs/user/${admin.user._id}?tag=sorted&limit=1`).expect(200);
    const next = await api
      .as(admin)
      .get(`/blogs/user/${admin.user._id}?tag=sorted&limit=1&cursor=${encodeURIComponent(ofUser.body.nextCursor)}`)
      .expect(200);
    expect(idsOf(next.body)).toEqual([expectedOrder(stored, '-createdAt').filter((id) => id !== stored[3]._id)[1]]);
  });

  it.each([
    ['with another sort', (cursor: string) => `tag=sorted&limit=2&sort=likesCount&cursor=${cursor}`],
    ['with another filter', (cursor: string) => `tag=walk&limit=2&cursor=${cursor}`],
    [
      'forged (one character of its signature changed)',
      (cursor: string) => `tag=sorted&limit=2&cursor=${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`,
    ],
    ['garbled', () => 'tag=sorted&limit=2&cursor=not-a-cursor'],
    ['with an offset', (cursor: string) => `tag=sorted&limit=2&offset=0&cursor=${cursor}`],
  ])('refuses a cursor %s with a 400 on cursor', async (_case, query) => {
    const first = await api.as(admin).get('/blogs/?tag=sorted&limit=2').expect(200);
    const forged = query(first.body.nextCursor as string);
    expectFieldError(await api.as(admin).get(`/blogs/?${forged}`), 'cursor', 'query');
  });

  it('refuses another viewer’s cursor when it would widen the query (a reader’s cursor is not an admin’s)', async () => {
    const first = await api.as(reader).get('/blogs/?tag=sorted&limit=1').expect(200);
    const cursor = encodeURIComponent(first.body.nextCursor);
    expectFieldError(await api.as(admin).get(`/blogs/?tag=sorted&limit=1&cursor=${cursor}`), 'cursor', 'query');
  });
});

describe('bad input', () => {
  it('echoes each refused value as it was sent', async () => {
    const valueOf = async (query: string, field: string) =>
      (await api.as(admin).get(`/blogs/?${query}`).expect(400)).body.errors[field].value;
    const before = '2025-01-01T00:00:00Z';
    expect(await valueOf(`publishedAfter=2025-02-01T00:00:00Z&publishedBefore=${before}`, 'publishedBefore')).toBe(
      before,
    );
    expect(await valueOf('tag=!!!', 'tag')).toBe('!!!');
    const first = await api.as(admin).get('/blogs/?tag=sorted&limit=1').expect(200);
    const cursor = first.body.nextCursor as string;
    expect(await valueOf(`tag=walk&cursor=${encodeURIComponent(cursor)}`, 'cursor')).toBe(cursor);
  });

  it.each([
    ['an unknown sort key', 'sort=title', 'sort'],
    ['a sort given twice', 'sort=likesCount&sort=viewsCount', 'sort'],
    ['an unknown status', 'status=archived', 'status'],
    ['an author that is no id', 'author=nobody', 'author'],
    ['a date that is no date', 'publishedAfter=yesterday', 'publishedAfter'],
    ['an impossible date', 'publishedBefore=2025-02-30T00:00:00Z', 'publishedBefore'],
    [
      'bounds the wrong way round',
      'publishedAfter=2025-02-01T00:00:00Z&publishedBefore=2025-01-01T00:00:00Z',
      'publishedBefore',
    ],
    [
      'bounds a fraction of a second the wrong way round',
      'publishedAfter=2025-01-01T00:00:00.500Z&publishedBefore=2025-01-01T00:00:00.400Z',
      'publishedBefore',
    ],
    ['a count that is no boolean', 'count=maybe', 'count'],
    ['a cursor of 301 characters', `cursor=${'a'.repeat(301)}`, 'cursor'],
  ])('refuses %s with a ValidationError, on both lists', async (_case, query, field) => {
    expectFieldError(await api.as(admin).get(`/blogs/?${query}`), field, 'query');
    expectFieldError(await api.as(admin).get(`/blogs/user/${admin.user._id}?${query}`), field, 'query');
  });
});
