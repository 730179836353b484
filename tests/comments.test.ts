/**
 * /comments against the real app and database: writing, listing and deleting comments, who may do each,
 * and `commentsCount` staying equal to the comment records, also when many comments arrive at once.
 */
import { BlogModel } from '../src/models/blog.model';
import { CommentModel } from '../src/models/comment.model';
import { COMMENT_VIEW_KEYS } from '../src/schemas/comment';
import { createBlog } from './helpers/blogs';
import { useTestApp } from './helpers/test-app';
import { registerUser, type SignedInUser } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();

const commentsOf = (blogId: string) => `/comments/blog/${blogId}`;
const commentPath = (commentId: string) => `/comments/${commentId}`;

const publishedBlog = () => createBlog(ctx.app, admin, { status: 'published' });
const draftBlog = () => createBlog(ctx.app, admin, { status: 'draft' });

/** A comment that must be created; fails the test with the answer otherwise. */
async function addComment(user: SignedInUser, blogId: string, content = 'A fine post') {
  const response = await api.as(user).post(commentsOf(blogId)).send({ content });
  if (response.status !== 201)
    throw new Error(`add comment failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.comment as { _id: string; content: string; [key: string]: unknown };
}

/** The blog's stored counter, read past the API so that reading it counts no view. */
async function storedCommentsCount(blogId: string): Promise<number> {
  const blog = await BlogModel.findById(blogId).lean();
  if (!blog) throw new Error(`blog ${blogId} is gone`);
  return blog.commentsCount;
}

/** A user as other regular users see them: everything but the email. */
function publicView(user: SignedInUser['user']) {
  const { email: _email, ...rest } = user;
  return rest;
}

describe('POST /comments/blog/{blogId}', () => {
  it('answers 201 with the comment, its author without email for a regular user', async () => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);

    const response = await api.as(user).post(commentsOf(blog._id)).send({ content: 'Nice read' });

    expect(response.status).toBe(201);
    expect(Object.keys(response.body)).toEqual(['comment']);
    const { comment } = response.body;
    expect(Object.keys(comment).sort()).toEqual([...COMMENT_VIEW_KEYS].sort());
    expect(comment).toEqual({
      _id: expect.stringMatching(/^[a-f0-9]{24}$/),
      blog: blog._id,
      author: publicView(user.user),
      content: 'Nice read',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(comment.author).not.toHaveProperty('email');
    expect(new Date(comment.createdAt).toISOString()).toBe(comment.createdAt);
  });

  it('shows an admin the author with their email', async () => {
    const blog = await publishedBlog();

    const response = await api.as(admin).post(commentsOf(blog._id)).send({ content: 'From the editor' });

    expect(response.status).toBe(201);
    expect(response.body.comment.author).toEqual(admin.user);
    expect(response.body.comment.author.email).toBe(admin.user.email);
  });

  it('trims the content', async () => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);

    const response = await api.as(user).post(commentsOf(blog._id)).send({ content: '  \n padded text \t ' });

    expect(response.status).toBe(201);
    expect(response.body.comment.content).toBe('padded text');
    expect((await CommentModel.findById(response.body.comment._id).lean())?.content).toBe('padded text');
  });

  it('accepts content of exactly 1000 characters, and of 1000 once trimmed', async () => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);

    const exact = await api
      .as(user)
      .post(commentsOf(blog._id))
      .send({ content: 'x'.repeat(1000) });
    const padded = await api
      .as(user)
      .post(commentsOf(blog._id))
      .send({ content: `  ${'y'.repeat(1000)}  ` });

    expect(exact.status).toBe(201);
    expect(exact.body.comment.content).toHaveLength(1000);
    expect(padded.status).toBe(201);
    expect(padded.body.comment.content).toBe('y'.repeat(1000));
  });

  it('counts an emoji as one character, as the content validator does: 999 letters and an emoji are accepted', async () => {
    // The validator (express-validator isLength) counts a surrogate pair as one character, so this
    // content passes it; the answer must not depend on a second, different count further down.
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);
    const content = `${'a'.repeat(999)}😀`;

    const response = await api.as(user).post(commentsOf(blog._id)).send({ content });

    // status and message side by side, so a failure says which layer refused it
    expect([response.status, response.body.errors?.content?.msg]).toEqual([201, undefined]);
    expect(response.body.comment.content).toBe(content);
    expect(await storedCommentsCount(blog._id)).toBe(1);
  });

  it('accepts a single character', async () => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);
    const response = await api.as(user).post(commentsOf(blog._id)).send({ content: 'k' });
    expect(response.status).toBe(201);
  });

  it.each([
    ['missing', {}],
    ['null', { content: null }],
    ['empty', { content: '' }],
    ['only whitespace', { content: ' \n\t ' }],
    ['only invisible characters', { content: '\u200b\u0000\ufeff' }],
    ['1001 characters', { content: 'z'.repeat(1001) }],
    ['an operator object', { content: { $gt: '' } }],
    ['a number', { content: 42 }],
    ['an array', { content: ['a', 'b'] }],
    ['a boolean', { content: true }],
  ])('refuses content that is %s with 400 ValidationError on content, and stores nothing', async (_label, body) => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);

    const response = await api.as(user).post(commentsOf(blog._id)).send(body);

    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ValidationError');
    expect(response.body.errors.content).toEqual({
      type: 'field',
      value: expect.any(String),
      msg: expect.any(String),
      path: 'content',
      location: 'body',
    });
    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(0);
    expect(await storedCommentsCount(blog._id)).toBe(0);
  });

  it('answers 404 NotFound to a regular user commenting on a draft, and stores nothing', async () => {
    const blog = await draftBlog();
    const user = await registerUser(ctx.app);

    const response = await api.as(user).post(commentsOf(blog._id)).send({ content: 'Early bird' });

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'NotFound', message: expect.any(String) });
    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(0);
  });

  it('lets an admin comment on a draft', async () => {
    const blog = await draftBlog();
    const response = await api.as(admin).post(commentsOf(blog._id)).send({ content: 'Fix the intro' });
    expect(response.status).toBe(201);
    expect(await storedCommentsCount(blog._id)).toBe(1);
  });
});

describe('commentsCount', () => {
  it('follows comments as they are created and deleted', async () => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);

    const first = await addComment(user, blog._id);
    await addComment(other, blog._id);
    await addComment(user, blog._id);
    const afterCreating = await api.as(user).get(`/blogs/${blog.slug}`).expect(200);
    await api.as(user).delete(commentPath(first._id)).expect(204);
    const afterDeleting = await api.as(user).get(`/blogs/${blog.slug}`).expect(200);

    expect(afterCreating.body.blog.commentsCount).toBe(3);
    expect(afterDeleting.body.blog.commentsCount).toBe(2);
    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(2);
  });

  it('counts comments per blog', async () => {
    const one = await publishedBlog();
    const two = await publishedBlog();
    const user = await registerUser(ctx.app);

    await addComment(user, one._id);
    await addComment(user, two._id);
    await addComment(user, two._id);

    expect(await storedCommentsCount(one._id)).toBe(1);
    expect(await storedCommentsCount(two._id)).toBe(2);
  });
});

describe('GET /comments/blog/{blogId}', () => {
  let blog: { _id: string; slug: string };
  let reader: SignedInUser;
  /** Five comments, oldest first. */
  let written: { _id: string; content: string }[];
  beforeAll(async () => {
    blog = await publishedBlog();
    reader = await registerUser(ctx.app);
    const writer = await registerUser(ctx.app);
    written = [];
    for (let index = 0; index < 5; index++)
      written.push(await addComment(index % 2 ? admin : writer, blog._id, `comment ${index}`));
  });

  it('answers 200 with the defaults 20 and 0 echoed and the comments newest first', async () => {
    const response = await api.as(reader).get(commentsOf(blog._id));

    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['comments', 'limit', 'offset', 'total']);
    expect(response.body).toMatchObject({ limit: 20, offset: 0, total: 5 });
    expect(response.body.comments.map((comment: { content: string }) => comment.content)).toEqual([
      'comment 4',
      'comment 3',
      'comment 2',
      'comment 1',
      'comment 0',
    ]);
    expect(response.body.comments.map((comment: { _id: string }) => comment._id)).toEqual(
      written.map((c) => c._id).reverse(),
    );
  });

  it('shows authors without email to a regular user and with email to an admin', async () => {
    const asUser = await api.as(reader).get(commentsOf(blog._id)).expect(200);
    const asAdmin = await api.as(admin).get(commentsOf(blog._id)).expect(200);

    for (const comment of asUser.body.comments) {
      expect(Object.keys(comment).sort()).toEqual([...COMMENT_VIEW_KEYS].sort());
      expect(comment.author).not.toHaveProperty('email');
      expect(comment.author).toHaveProperty('username');
    }
    for (const comment of asAdmin.body.comments) expect(comment.author.email).toEqual(expect.stringContaining('@'));
    expect(
      asAdmin.body.comments.find((comment: { author: { _id: string } }) => comment.author._id === admin.user._id)
        .author,
    ).toEqual(admin.user);
  });

  it('slices the list with limit and offset and still reports the total', async () => {
    const all = await api.as(reader).get(commentsOf(blog._id)).expect(200);

    const page = await api.as(reader).get(`${commentsOf(blog._id)}?limit=2&offset=1`);

    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ limit: 2, offset: 1, total: 5 });
    expect(page.body.comments.map((c: { _id: string }) => c._id)).toEqual(
      all.body.comments.slice(1, 3).map((c: { _id: string }) => c._id),
    );
  });

  it('answers the last partial page and an empty page past the end', async () => {
    const last = await api.as(reader).get(`${commentsOf(blog._id)}?limit=2&offset=4`);
    const past = await api.as(reader).get(`${commentsOf(blog._id)}?offset=100`);

    expect(last.body.comments.map((c: { _id: string }) => c._id)).toEqual([written[0]._id]);
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ limit: 20, offset: 100, total: 5, comments: [] });
  });

  it('accepts the bounds limit=1 and limit=50', async () => {
    const one = await api.as(reader).get(`${commentsOf(blog._id)}?limit=1`);
    const fifty = await api.as(reader).get(`${commentsOf(blog._id)}?limit=50`);

    expect(one.status).toBe(200);
    expect(one.body.comments).toHaveLength(1);
    expect(fifty.status).toBe(200);
    expect(fifty.body).toMatchObject({ limit: 50, total: 5 });
  });

  it('answers an empty page for a blog without comments', async () => {
    const quiet = await publishedBlog();
    const response = await api.as(reader).get(commentsOf(quiet._id));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ limit: 20, offset: 0, total: 0, comments: [] });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=51', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=', 'limit'],
    ['limit=5&limit=6', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['offset=1&offset=2', 'offset'],
  ])('refuses ?%s with 400 ValidationError on %s', async (query, field) => {
    const response = await api.as(reader).get(`${commentsOf(blog._id)}?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ValidationError');
    expect(response.body.errors[field]).toMatchObject({ path: field, location: 'query' });
  });

  it('answers 404 NotFound to a regular user for a draft, and lists its comments to an admin', async () => {
    const draft = await draftBlog();
    await addComment(admin, draft._id, 'note to self');

    const asUser = await api.as(reader).get(commentsOf(draft._id));
    const asAdmin = await api.as(admin).get(commentsOf(draft._id));

    expect(asUser.status).toBe(404);
    expect(asUser.body).toEqual({ code: 'NotFound', message: expect.any(String) });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body.comments.map((c: { content: string }) => c.content)).toEqual(['note to self']);
  });
});

describe('DELETE /comments/{commentId}', () => {
  it('lets the author delete their comment: 204 with an empty body', async () => {
    const blog = await publishedBlog();
    const author = await registerUser(ctx.app);
    const comment = await addComment(author, blog._id);

    const response = await api.as(author).delete(commentPath(comment._id));

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(await CommentModel.exists({ _id: comment._id })).toBeNull();
    expect(await storedCommentsCount(blog._id)).toBe(0);
  });

  it('refuses another regular user with 403 AuthorizationError and keeps the comment', async () => {
    const blog = await publishedBlog();
    const author = await registerUser(ctx.app);
    const stranger = await registerUser(ctx.app);
    const comment = await addComment(author, blog._id);

    const response = await api.as(stranger).delete(commentPath(comment._id));

    expect(response.status).toBe(403);
    expect(response.body).toEqual({ code: 'AuthorizationError', message: expect.any(String) });
    expect(await CommentModel.exists({ _id: comment._id })).not.toBeNull();
    expect(await storedCommentsCount(blog._id)).toBe(1);
  });

  it("lets an admin delete anyone's comment", async () => {
    const blog = await publishedBlog();
    const author = await registerUser(ctx.app);
    const comment = await addComment(author, blog._id);

    const response = await api.as(admin).delete(commentPath(comment._id));

    expect(response.status).toBe(204);
    expect(await CommentModel.exists({ _id: comment._id })).toBeNull();
    expect(await storedCommentsCount(blog._id)).toBe(0);
  });

  it('answers 404 NotFound the second time the same comment is deleted, and counts it once', async () => {
    const blog = await publishedBlog();
    const author = await registerUser(ctx.app);
    const comment = await addComment(author, blog._id);
    await addComment(author, blog._id);
    await api.as(author).delete(commentPath(comment._id)).expect(204);

    const again = await api.as(author).delete(commentPath(comment._id));

    expect(again.status).toBe(404);
    expect(again.body).toEqual({ code: 'NotFound', message: expect.any(String) });
    expect(await storedCommentsCount(blog._id)).toBe(1);
  });
});

describe('comments and the blog they are on', () => {
  it("leave the blog's updatedAt alone: counting is not editing", async () => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);
    const before = (await BlogModel.findById(blog._id).lean())?.updatedAt;

    const comment = await addComment(user, blog._id);
    await api.as(user).delete(commentPath(comment._id)).expect(204);

    expect((await BlogModel.findById(blog._id).lean())?.updatedAt).toEqual(before);
  });

  it('leave no comment behind when the blog is deleted while they are being written', async () => {
    const blog = await publishedBlog();
    const users = await Promise.all(Array.from({ length: 15 }, () => registerUser(ctx.app)));
    await addComment(users[0], blog._id, 'before the deletion');

    const [deletion, ...creations] = await Promise.all([
      api.as(admin).delete(`/blogs/${blog._id}?permanent=true`),
      ...users.map((user) => api.as(user).post(commentsOf(blog._id)).send({ content: 'racing' })),
    ]);

    expect(deletion.status).toBe(204);
    expect(
      creations.filter((response) => ![201, 404].includes(response.status)).map((response) => response.status),
    ).toEqual([]);
    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(0);
  });
});

describe('many comments written and deleted on one blog at once', () => {
  it('keeps commentsCount equal to the comment records, never answering 500', async () => {
    // Arrange: 25 users, and 6 comments already there.
    const blog = await publishedBlog();
    const users = await Promise.all(Array.from({ length: 25 }, () => registerUser(ctx.app)));
    const existing: { _id: string }[] = [];
    for (const user of users.slice(0, 6))
      existing.push(await addComment(user, blog._id, `early by ${user.user.username}`));

    // Act: every user comments; meanwhile comments 0-2 are deleted by their authors, comment 3 by an admin,
    // and comment 4 twice over (by its author and by an admin) at the same time.
    const creations = users.map((user, index) =>
      api
        .as(user)
        .post(commentsOf(blog._id))
        .send({ content: `burst ${index}` }),
    );
    const deletions = [
      ...[0, 1, 2].map((index) => api.as(users[index]).delete(commentPath(existing[index]._id))),
      api.as(admin).delete(commentPath(existing[3]._id)),
      api.as(users[4]).delete(commentPath(existing[4]._id)),
      api.as(admin).delete(commentPath(existing[4]._id)),
    ];
    const [created, deleted] = await Promise.all([Promise.all(creations), Promise.all(deletions)]);

    // Assert
    expect(created.map((response) => response.status)).toEqual(Array(25).fill(201));
    const deletionStatuses = deleted.map((response) => response.status);
    expect(deletionStatuses.slice(0, 4)).toEqual([204, 204, 204, 204]);
    expect([...deletionStatuses.slice(4)].sort()).toEqual([204, 404]);

    const expected = 6 + 25 - 5;
    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(expected);
    expect(await storedCommentsCount(blog._id)).toBe(expected);
    const listed = await api
      .as(admin)
      .get(`${commentsOf(blog._id)}?limit=50`)
      .expect(200);
    expect(listed.body.total).toBe(expected);
    expect(listed.body.comments).toHaveLength(expected);
    expect(listed.body.comments.map((c: { _id: string }) => c._id)).toContain(existing[5]._id);
  });
});
