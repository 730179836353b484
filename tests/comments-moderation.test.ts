/**
 * GET /comments: every comment on every blog for moderators, newest first, paginated like the other lists,
 * each with its blog's _id, title and slug and its author.
 */
import { CommentModel } from '../src/models/comment.model';
import { createBlog } from './helpers/blogs';
import { useTestApp } from './helpers/test-app';
import { registerUser, type SignedInUser } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();

async function addComment(user: SignedInUser, blogId: string, content: string) {
  const response = await api.as(user).post(`/comments/blog/${blogId}`).send({ content });
  if (response.status !== 201)
    throw new Error(`add comment failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.comment as { _id: string };
}

describe('GET /comments', () => {
  it("lists every comment newest first, each with its blog's _id, title and slug and its full author for the admin", async () => {
    const published = await createBlog(ctx.app, admin, { status: 'published', title: 'Moderated post' });
    const draft = await createBlog(ctx.app, admin, { status: 'draft', title: 'Draft post' });
    const user = await registerUser(ctx.app);
    const first = await addComment(user, published._id, 'first');
    const second = await addComment(admin, draft._id, 'second');
    const third = await addComment(user, published._id, 'third');

    const response = await api.as(admin).get('/comments');

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ limit: 20, offset: 0, total: 3 });
    expect(response.body.comments.map((comment: { _id: string }) => comment._id)).toEqual([
      third._id,
      second._id,
      first._id,
    ]);
    expect(response.body.comments[0]).toEqual({
      _id: third._id,
      content: 'third',
      blog: { _id: published._id, title: 'Moderated post', slug: published.slug },
      author: expect.objectContaining({ _id: user.user._id, email: user.user.email }),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(response.body.comments[1].blog).toEqual({ _id: draft._id, title: 'Draft post', slug: draft.slug });
  });

  it('pages with limit and offset', async () => {
    const total = await CommentModel.countDocuments();

    const page = await api.as(admin).get('/comments?limit=1&offset=1');

    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ limit: 1, offset: 1, total });
    expect(page.body.comments).toHaveLength(1);
  });

  it('refuses a limit over 50 with 400 naming limit', async () => {
    const bad = await api.as(admin).get('/comments?limit=51');

    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['limit']);
  });
});
