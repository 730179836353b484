import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { BlogModel } from '../src/models/blog.model';
import { BLOG_VIEW_KEYS } from '../src/schemas/blog';
import { createBlog, postBlog } from './helpers/blogs';
import { makeImage } from './helpers/images';
import { expectFieldError } from './helpers/expectations';
import { useTestApp } from './helpers/test-app';
import { registerAdmin, type SignedInUser } from './helpers/users';

const ctx = useTestApp({ env: { ADMIN_EMAILS: 'admin@example.com,second@example.com' } });
const api = ctx.api;
const admin = ctx.signedInAdmin();
const reader = ctx.signedInUser();

const UNKNOWN_ID = '5f0000000000000000000000';
const bannerFiles = () => readdirSync(path.join(ctx.uploadsDir, 'banners'));
const fileOf = (url: string) => path.join(ctx.uploadsDir, 'banners', path.basename(new URL(url).pathname));

/** The fields of a blog response, in order, as src/schemas/blog.ts defines the view. */
const BLOG_KEYS = BLOG_VIEW_KEYS;

describe('POST /blogs/', () => {
  it.each([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['webp', 'image/webp'],
  ] as const)(
    'creates a blog with a %s banner: 201, the whole shape, the real pixel size',
    async (format, mimeType) => {
      const banner = await makeImage(format, 97, 41);
      const response = await postBlog(ctx.app, admin, { title: `A ${format} post`, banner, filename: `b.${format}` });

      expect(response.status).toBe(201);
      const { blog } = response.body;
      expect(Object.keys(blog)).toEqual(BLOG_KEYS);
      expect(blog).toMatchObject({
        title: `A ${format} post`,
        slug: `a-${format}-post`,
        banner: {
          url: expect.stringMatching(new RegExp(`/uploads/banners/[a-f0-9]{24}\\.${format}$`)),
          width: 97,
          height: 41,
        },
        author: { _id: admin.user._id, username: admin.user.username, role: 'admin' },
        viewsCount: 0,
        likesCount: 0,
        commentsCount: 0,
        status: 'draft',
        publishedAt: null,
        likedByMe: false,
      });
      expect(Object.keys(blog.banner)).toEqual(['url', 'width', 'height', 'variants']);

      const served = await request(ctx.app).get(new URL(blog.banner.url).pathname); // the uploads folder, outside the API
      expect(served.status).toBe(200);
      expect(served.headers['content-type']).toBe(mimeType);
      // what is served is the picture re-encoded in the same format (security: no metadata, no trailing bytes)
      const servedImage = await sharp(served.body).metadata();
      expect(servedImage).toMatchObject({ format, width: 97, height: 41 });
    },
  );

  it('publishes at once with status published, setting publishedAt', async () => {
    const before = Date.now();
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    expect(blog.status).toBe('published');
    expect(new Date(blog.publishedAt as string).getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('stores content sanitized: scripts, handlers and javascript: URLs go, formatting, links and images stay', async () => {
    const content =
      '<h2 onclick="steal()">Title</h2><p style="color:red">Hello <strong>bold</strong> <em>it</em> ' +
      '<a href="javascript:alert(1)">bad</a> <a href="https://example.com">good</a></p>' +
      '<script>alert(1)</script><iframe src="https://evil.example"></iframe>' +
      '<img src="https://img.example/a.png" alt="A" onerror="steal()"><ul><li>one</li></ul>';
    const blog = await createBlog(ctx.app, admin, { content });

    expect(blog.content).toBe(
      '<h2>Title</h2><p>Hello <strong>bold</strong> <em>it</em> <a rel="noopener noreferrer nofollow">bad</a> ' +
        '<a href="https://example.com" rel="noopener noreferrer nofollow">good</a></p>' +
        '<img src="https://img.example/a.png" alt="A" /><ul><li>one</li></ul>',
    );
  });

  it('gives a second blog with the same title a distinct slug', async () => {
    const first = await createBlog(ctx.app, admin, { title: 'Same Title, Twice!' });
    const second = await createBlog(ctx.app, admin, { title: 'Same Title, Twice!' });

    expect(first.slug).toBe('same-title-twice');
    expect(second.slug).toMatch(/^same-title-twice-[a-f0-9]{6}$/);
  });

  it('derives URL-friendly slugs from any title', async () => {
    const accented = await createBlog(ctx.app, admin, { title: 'Ça va, Wörld? <3 & more' });
    const symbols = await createBlog(ctx.app, admin, { title: '東京' });
    // symbols are dropped, never spelled out ("dollar5", "100percent", "love")
    const priced = await createBlog(ctx.app, admin, { title: '100% fun & games $5 ♥ ©' });
    expect(accented.slug).toBe('ca-va-world-3-more');
    expect(priced.slug).toBe('100-fun-games-5');
    expect(symbols.slug).toMatch(/^post(-[a-f0-9]{6})?$/);
  });

  describe('refuses invalid forms with 400 ValidationError, storing nothing', () => {
    let filesBefore: number;
    let blogsBefore: number;
    beforeEach(async () => {
      filesBefore = existsSync(path.join(ctx.uploadsDir, 'banners')) ? bannerFiles().length : 0;
      blogsBefore = await BlogModel.countDocuments();
    });
    afterEach(async () => {
      expect(await BlogModel.countDocuments()).toBe(blogsBefore);
      expect(existsSync(path.join(ctx.uploadsDir, 'banners')) ? bannerFiles().length : 0).toBe(filesBefore);
    });

    it('a text file renamed to .png', async () => {
      const response = await postBlog(ctx.app, admin, {
        banner: Buffer.from('just some text, not an image at all'),
        filename: 'banner.png',
      });
      expectFieldError(response, 'banner_image');
      expect(response.body.errors.banner_image.msg).toBe('Banner image must be a PNG, JPEG or WebP image');
    });

    it('a GIF (a real image of another type)', async () => {
      const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
      expectFieldError(await postBlog(ctx.app, admin, { banner: gif, filename: 'banner.png' }), 'banner_image');
    });

    it.each(['png', 'jpeg', 'webp'] as const)('a truncated %s', async (format) => {
      const whole = await makeImage(format, 200, 150);
      const response = await postBlog(ctx.app, admin, { banner: whole.subarray(0, Math.floor(whole.length * 0.6)) });
      expectFieldError(response, 'banner_image');
      expect(response.body.errors.banner_image.msg).toMatch(/could not be decoded/);
    });

    it('a missing banner', async () => {
      const response = await api.as(admin).post('/blogs/').field('title', 'No banner').field('content', '<p>x</p>');
      expectFieldError(response, 'banner_image');
    });

    it('a JSON body instead of a form', async () => {
      const response = await api.as(admin).post('/blogs/').send({ title: 'JSON', content: '<p>x</p>' });
      expectFieldError(response, 'banner_image');
    });

    it('a file in another field', async () => {
      const response = await api
        .as(admin)
        .post('/blogs/')
        .field('title', 'Wrong field')
        .field('content', '<p>x</p>')
        .attach('image', await makeImage('png'), 'b.png');
      expectFieldError(response, 'image');
    });

    it.each([
      ['missing', undefined],
      ['empty', '   '],
      ['of zero-width spaces', '\u200b\u200b'],
      ['181 characters', 'x'.repeat(181)],
    ])('a title %s', async (_label, title) => {
      const req = api.as(admin).post('/blogs/').field('content', '<p>x</p>');
      if (title !== undefined) req.field('title', title);
      expectFieldError(await req.attach('banner_image', await makeImage('png'), 'b.png'), 'title');
    });

    it('a repeated title (an array, not a string)', async () => {
      const response = await api
        .as(admin)
        .post('/blogs/')
        .field('title', 'one')
        .field('title', 'two')
        .field('content', '<p>x</p>')
        .attach('banner_image', await makeImage('png'), 'b.png');
      expectFieldError(response, 'title');
    });

    it('an operator object as the title', async () => {
      const response = await api
        .as(admin)
        .post('/blogs/')
        .field('title[$gt]', '')
        .field('content', '<p>x</p>')
        .attach('banner_image', await makeImage('png'), 'b.png');
      expectFieldError(response, 'title');
    });

    it('content missing, over the configured maximum, or nothing but a script', async () => {
      const { app } = ctx.buildApp({ BLOG_CONTENT_MAX_LENGTH: '50' });
      expectFieldError(await postBlog(app, admin, { content: 'x'.repeat(51) }), 'content');
      expectFieldError(await postBlog(ctx.app, admin, { content: '<script>alert(1)</script>' }), 'content');
      const missing = await api
        .as(admin)
        .post('/blogs/')
        .field('title', 't')
        .attach('banner_image', await makeImage('png'), 'b.png');
      expectFieldError(missing, 'content');
    });

    it('a status other than draft or published', async () => {
      expectFieldError(await postBlog(ctx.app, admin, { status: 'archived' as never }), 'status');
    });

    it('several mistakes at once, each under its field', async () => {
      const response = await api
        .as(admin)
        .post('/blogs/')
        .field('status', 'nope')
        .attach('banner_image', Buffer.from('text'), 'b.png');
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors).sort()).toEqual(['banner_image', 'content', 'status', 'title']);
    });
  });

  it('refuses a banner of 2 MB + 1 byte with 413 ValidationError, and accepts exactly 2 MB', async () => {
    const png = await makeImage('png', 16, 16);
    // bytes after PNG's IEND chunk are ignored by decoders, so the file stays a valid image at any size
    const padded = (size: number) => Buffer.concat([png, Buffer.alloc(size - png.length)]);

    const tooLarge = await postBlog(ctx.app, admin, { banner: padded(2 * 1024 * 1024 + 1) });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual({ code: 'ValidationError', message: 'Banner image must be at most 2 MB' });

    const exact = await postBlog(ctx.app, admin, { banner: padded(2 * 1024 * 1024) });
    expect(exact.status).toBe(201);
  });

  it('answers 502 ServerError when the local folder cannot be written, and stores no blog', async () => {
    // a regular file where the uploads folder should be: mkdir fails as it would on a full or read-only disk
    const blocked = path.join(ctx.uploadsDir, 'not-a-folder');
    writeFileSync(blocked, 'x');
    const { app } = ctx.buildApp({ UPLOADS_DIR: blocked });

    const response = await postBlog(app, admin, { title: 'Disk trouble' });

    expect(response.status).toBe(502);
    expect(response.body).toEqual({ code: 'ServerError', message: expect.any(String) });
    expect(response.body.message).not.toContain(blocked);
    expect(await BlogModel.countDocuments({ title: 'Disk trouble' })).toBe(0);
  });

  it('refuses a malformed multipart body with 400', async () => {
    const response = await api
      .as(admin)
      .post('/blogs/')
      .set('Content-Type', 'multipart/form-data; boundary=xyz')
      .send('--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nunterminated');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: 'BadRequest', message: expect.any(String) });
  });

  // 401 without a token and 403 on the JSON body of a regular user: tests/shared-refusals.test.ts
  it('answers 403 AuthorizationError to a regular user sending a whole form, before reading the upload', async () => {
    const forbidden = await postBlog(ctx.app, reader);

    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ code: 'AuthorizationError', message: expect.any(String) });
  });
});

describe('reading blogs', () => {
  let author: SignedInUser;
  let published: { _id: string; slug: string }[];
  let draft: { _id: string; slug: string };
  beforeAll(async () => {
    author = await registerAdmin(ctx.app, 'second@example.com');
    published = [];
    for (let i = 0; i < 3; i++)
      published.push(await createBlog(ctx.app, author, { title: `Second's post ${i}`, status: 'published' }));
    draft = await createBlog(ctx.app, author, { title: "Second's draft" });
  });

  describe('GET /blogs/', () => {
    it('gives regular users only published blogs, newest first, with the defaults echoed', async () => {
      const response = await api.as(reader).get('/blogs/');

      expect(response.status).toBe(200);
      expect(Object.keys(response.body)).toEqual(['limit', 'offset', 'total', 'blogs', 'nextCursor']);
      expect(response.body).toMatchObject({
        limit: 20,
        offset: 0,
        total: await BlogModel.countDocuments({ status: 'published' }),
      });
      const blogs = response.body.blogs as { status: string; createdAt: string; slug: string }[];
      expect(blogs.every((blog) => blog.status === 'published')).toBe(true);
      expect(blogs.map((blog) => blog.slug)).not.toContain(draft.slug);
      const times = blogs.map((blog) => Date.parse(blog.createdAt));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(blogs[0].slug).toBe(published[2].slug);
    });

    it('gives admins every blog, drafts included', async () => {
      const response = await api.as(admin).get('/blogs/').query({ limit: 50 });
      expect(response.body.total).toBe(await BlogModel.countDocuments());
      expect(response.body.blogs.map((blog: { slug: string }) => blog.slug)).toContain(draft.slug);
    });

    it('shows authors without their email to regular users, and with it to admins', async () => {
      const asReader = await api.as(reader).get('/blogs/');
      const asAdmin = await api.as(admin).get('/blogs/');
      expect(asReader.body.blogs[0].author).not.toHaveProperty('email');
      expect(asReader.body.blogs[0].author).toMatchObject({ _id: author.user._id, username: author.user.username });
      expect(asAdmin.body.blogs[0].author.email).toBe('second@example.com');
      expect(JSON.stringify(asAdmin.body)).not.toMatch(/password|\$2[aby]\$|"key"/);
    });

    it('pages with limit and offset', async () => {
      const all = (await api.as(reader).get('/blogs/').query({ limit: 50 })).body.blogs;

      const page = await api.as(reader).get('/blogs/').query({ limit: 2, offset: 1 });

      expect(page.body).toMatchObject({ limit: 2, offset: 1, total: all.length });
      expect(page.body.blogs.map((blog: { _id: string }) => blog._id)).toEqual(
        all.slice(1, 3).map((blog: { _id: string }) => blog._id),
      );
    });

    it('answers an empty page beyond the last blog', async () => {
      const beyond = await api.as(reader).get('/blogs/').query({ offset: 10_000 });
      expect(beyond.body).toMatchObject({ offset: 10_000, blogs: [] });
    });

    it.each([
      ['limit', '0'],
      ['limit', '51'],
      ['limit', 'abc'],
      ['limit', '1.5'],
      ['offset', '-1'],
      ['offset', 'x'],
    ])('refuses %s=%s with 400 ValidationError', async (name, value) => {
      const response = await api
        .as(reader)
        .get('/blogs/')
        .query({ [name]: value });
      expect(response.status).toBe(400);
      expect(response.body.errors[name]).toMatchObject({ path: name, location: 'query', value });
    });

    it('refuses a repeated limit', async () => {
      const response = await api.as(reader).get('/blogs/?limit=1&limit=2');
      expect(response.status).toBe(400);
    });
  });

  describe('GET /blogs/user/{userId}', () => {
    it("lists one author's published blogs for regular users, newest first", async () => {
      const response = await api.as(reader).get(`/blogs/user/${author.user._id}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ limit: 20, offset: 0, total: 3 });
      expect(response.body.blogs.map((blog: { slug: string }) => blog.slug)).toEqual(
        published.map((blog) => blog.slug).reverse(),
      );
    });

    it("lists the author's drafts too for admins", async () => {
      const response = await api.as(admin).get(`/blogs/user/${author.user._id}`);
      expect(response.body.total).toBe(4);
      expect(response.body.blogs[0].slug).toBe(draft.slug);
    });

    it('answers an empty page for a user without blogs', async () => {
      expect((await api.as(reader).get(`/blogs/user/${UNKNOWN_ID}`)).body).toEqual({
        limit: 20,
        offset: 0,
        total: 0,
        nextCursor: null,
        blogs: [],
      });
    });

    it('answers 400 for bad paging', async () => {
      expect((await api.as(reader).get(`/blogs/user/${author.user._id}`).query({ limit: 51 })).status).toBe(400);
    });
  });

  describe('GET /blogs/{slug}', () => {
    it('answers {blog} and counts each view of a published blog', async () => {
      const first = await api.as(reader).get(`/blogs/${published[0].slug}`);
      const second = await api.as(reader).get(`/blogs/${published[0].slug}`);

      expect(first.status).toBe(200);
      expect(Object.keys(first.body)).toEqual(['blog']);
      expect(Object.keys(first.body.blog)).toEqual(BLOG_KEYS);
      expect(second.body.blog.viewsCount).toBe(first.body.blog.viewsCount + 1);
      // a view is not an edit
      expect(second.body.blog.updatedAt).toBe(first.body.blog.updatedAt);
    });

    it('answers HEAD as GET, without a body, and counts no view for it', async () => {
      const blog = await createBlog(ctx.app, author, { status: 'published' });

      const heads = await Promise.all([1, 2, 3].map(() => api.as(reader).head(`/blogs/${blog.slug}`)));
      const unknown = await api.as(reader).head('/blogs/no-such-post');

      expect(heads.map((head) => head.status)).toEqual([200, 200, 200]);
      expect(unknown.status).toBe(404);
      expect((await BlogModel.findById(blog._id))!.viewsCount).toBe(0);
      expect((await api.as(reader).get(`/blogs/${blog.slug}`)).body.blog.viewsCount).toBe(1);
    });

    it('counts concurrent views without losing any', async () => {
      const blog = await createBlog(ctx.app, author, { status: 'published' });
      await Promise.all(Array.from({ length: 30 }, () => api.as(reader).get(`/blogs/${blog.slug}`).expect(200)));
      expect((await BlogModel.findById(blog._id))!.viewsCount).toBe(30);
    });

    it('hides a draft from regular users with the same 404 as an unknown slug', async () => {
      const hidden = await api.as(reader).get(`/blogs/${draft.slug}`);
      const unknown = await api.as(reader).get('/blogs/no-such-blog');
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual({ code: 'NotFound', message: 'Blog not found' });
      expect(unknown.body).toEqual(hidden.body);
    });

    it('shows a draft to admins without counting a view', async () => {
      const response = await api.as(admin).get(`/blogs/${draft.slug}`);
      expect(response.status).toBe(200);
      expect(response.body.blog).toMatchObject({ status: 'draft', viewsCount: 0 });
    });
  });
});

describe('PUT /blogs/{blogId}', () => {
  it('changes title, content and status; the slug stays; the first publication sets publishedAt', async () => {
    const blog = await createBlog(ctx.app, admin, { title: 'Original title' });
    const response = await api
      .as(admin)
      .put(`/blogs/${blog._id}`)
      .field('title', 'A better title')
      .field('content', '<p>New <script>x</script>text</p>')
      .field('status', 'published');

    expect(response.status).toBe(200);
    expect(response.body.blog).toMatchObject({
      title: 'A better title',
      slug: 'original-title',
      content: '<p>New text</p>',
      status: 'published',
      publishedAt: expect.any(String),
      banner: blog.banner,
    });
    expect(Date.parse(response.body.blog.updatedAt)).toBeGreaterThanOrEqual(Date.parse(blog.updatedAt as string));
  });

  it('keeps the first publishedAt when a blog is unpublished and published again', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    await api.as(admin).put(`/blogs/${blog._id}`).field('status', 'draft').expect(200);
    const again = await api.as(admin).put(`/blogs/${blog._id}`).field('status', 'published');
    expect(again.body.blog.publishedAt).toBe(blog.publishedAt);
  });

  it('derives a new slug from the title when asked to', async () => {
    const blog = await createBlog(ctx.app, admin, { title: 'Before rename' });
    const response = await api
      .as(admin)
      .put(`/blogs/${blog._id}`)
      .field('title', 'After rename')
      .field('regenerate_slug', 'true');
    expect(response.body.blog.slug).toBe('after-rename');
    expect((await api.as(admin).get('/blogs/after-rename')).status).toBe(200);
    expect((await api.as(admin).get('/blogs/before-rename')).status).toBe(404);
  });

  it('replaces the banner and deletes the old file', async () => {
    const blog = await createBlog(ctx.app, admin);
    const oldFile = fileOf((blog.banner as { url: string }).url);
    expect(existsSync(oldFile)).toBe(true);

    const response = await api
      .as(admin)
      .put(`/blogs/${blog._id}`)
      .attach('banner_image', await makeImage('webp', 33, 22), 'new.webp');

    expect(response.status).toBe(200);
    expect(response.body.blog.banner).toMatchObject({ width: 33, height: 22, url: expect.stringMatching(/\.webp$/) });
    expect(existsSync(fileOf(response.body.blog.banner.url))).toBe(true);
    expect(existsSync(oldFile)).toBe(false);
  });

  it('keeps the old banner when the new one is refused', async () => {
    const blog = await createBlog(ctx.app, admin);
    const response = await api.as(admin).put(`/blogs/${blog._id}`).attach('banner_image', Buffer.from('nope'), 'x.png');
    expect(response.status).toBe(400);
    expect(existsSync(fileOf((blog.banner as { url: string }).url))).toBe(true);
  });

  it('takes edits of the same post at once, the last one winning, as one edit after another would', async () => {
    const blog = await createBlog(ctx.app, admin, { tags: 'start' });
    const tags = ['one', 'two', 'three', 'four', 'five', 'six'];

    const answers = await Promise.all(tags.map((tag) => api.as(admin).put(`/blogs/${blog._id}`).field('tags', tag)));

    expect(answers.map((answer) => answer.status)).toEqual(tags.map(() => 200));
    const stored = await BlogModel.findById(blog._id).lean();
    expect(tags.map((tag) => [tag])).toContainEqual(stored!.tags);
  });

  it('answers an edit racing a delete of the same post with 200 or 404, never 500', async () => {
    const blog = await createBlog(ctx.app, admin);

    const [edit, deletion] = await Promise.all([
      api.as(admin).put(`/blogs/${blog._id}`).field('tags', 'late'),
      api.as(admin).delete(`/blogs/${blog._id}?permanent=true`),
    ]);

    expect(deletion.status).toBe(204);
    expect([200, 404]).toContain(edit.status);
    if (edit.status === 404) expect(edit.body).toEqual({ code: 'NotFound', message: 'Blog not found' });
  });

  it('keeps the counters that changed meanwhile', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    await api.as(reader).post(`/likes/blog/${blog._id}`).expect(200);
    const response = await api.as(admin).put(`/blogs/${blog._id}`).field('title', 'Edited after a like');
    expect(response.body.blog.likesCount).toBe(1);
  });

  it.each([
    ['title', 'x'.repeat(181)],
    ['status', 'archived'],
    ['regenerate_slug', 'yes'],
    ['content', '<script>only</script>'],
  ])('refuses an invalid %s with 400 ValidationError', async (field, value) => {
    const blog = await createBlog(ctx.app, admin);
    const response = await api.as(admin).put(`/blogs/${blog._id}`).field(field, value);
    expect(response.status).toBe(400);
    expect(response.body.errors[field]).toMatchObject({ path: field, location: 'body' });
  });
});

describe('DELETE /blogs/{blogId}', () => {
  it('with permanent=true answers 204 and removes the blog, its banner file, its comments and its likes', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    await api.as(reader).post(`/likes/blog/${blog._id}`).expect(200);
    await api.as(reader).post(`/comments/blog/${blog._id}`).send({ content: 'First!' }).expect(201);
    const file = fileOf((blog.banner as { url: string }).url);

    const response = await api.as(admin).delete(`/blogs/${blog._id}?permanent=true`);

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(existsSync(file)).toBe(false);
    expect((await api.as(admin).get(`/blogs/${blog.slug}`)).status).toBe(404);
    expect((await api.as(admin).get(`/comments/blog/${blog._id}`)).status).toBe(404);
    const { CommentModel } = await import('../src/models/comment.model');
    const { LikeModel } = await import('../src/models/like.model');
    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(0);
    expect(await LikeModel.countDocuments({ blog: blog._id })).toBe(0);
  });

  // 404 for an unknown id, 400 for a malformed one, 403 for a regular user: tests/shared-refusals.test.ts
  it('answers 404 NotFound the second time the same blog is deleted', async () => {
    const blog = await createBlog(ctx.app, admin);
    await api.as(admin).delete(`/blogs/${blog._id}`).expect(204);

    const again = await api.as(admin).delete(`/blogs/${blog._id}`);

    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 'NotFound', message: 'Blog not found' });
  });
});

describe('banner files', () => {
  const bannerPath = (blog: Record<string, unknown>) => new URL((blog.banner as { url: string }).url).pathname;

  it('serves a range, and refuses one past the end with 416 in the error shape, not as the image', async () => {
    const blog = await createBlog(ctx.app, admin);
    const size = readFileSync(fileOf((blog.banner as { url: string }).url)).length;

    const part = await request(ctx.app).get(bannerPath(blog)).set('Range', 'bytes=0-9');
    const past = await request(ctx.app).get(bannerPath(blog)).set('Range', 'bytes=99999999-');

    expect(part.status).toBe(206);
    expect(part.body).toHaveLength(10);
    expect(past.status).toBe(416);
    expect(past.headers['content-type']).toMatch(/^application\/json/);
    expect(past.headers['content-range']).toBe(`bytes */${size}`);
    expect(past.headers['cache-control']).toBeUndefined();
    expect(past.body).toEqual({ code: 'BadRequest', message: 'The requested range is not within the file' });
  });

  it.each([
    ['If-Match', '"not-its-etag"'],
    ['If-Unmodified-Since', 'Thu, 01 Jan 2015 00:00:00 GMT'],
  ])('answers a failed %s with 412 in the error shape', async (header, value) => {
    const blog = await createBlog(ctx.app, admin);

    const answer = await request(ctx.app).get(bannerPath(blog)).set(header, value);

    expect(answer.status).toBe(412);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.body.code).toBe('BadRequest');
  });

  it("answers the reference page's assets' refusals the same way", async () => {
    const answer = await request(ctx.app).get('/api/v1/docs/assets/swagger-ui.css').set('If-Match', '"x"');

    expect(answer.status).toBe(412);
    expect(answer.body.code).toBe('BadRequest');
  });
});
