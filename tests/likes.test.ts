/**
 * /likes against the real app and database: liking and unliking, who may like what, `likedByMe` as each
 * viewer sees it, and `likesCount` staying equal to the like records when many users like at once.
 */
import { Types } from 'mongoose';
import { BlogModel } from '../src/models/blog.model';
import { LikeModel } from '../src/models/like.model';
import { createBlog } from './helpers/blogs';
import { useTestApp } from './helpers/test-app';
import { registerUser, type SignedInUser } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();

const likePath = (blogId: string) => `/likes/blog/${blogId}`;

const publishedBlog = () => createBlog(ctx.app, admin, { status: 'published' });
const draftBlog = () => createBlog(ctx.app, admin, { status: 'draft' });

/** The blog's stored counter, read past the API so that reading it counts no view. */
async function storedLikesCount(blogId: string): Promise<number> {
  const blog = await BlogModel.findById(blogId).lean();
  if (!blog) throw new Error(`blog ${blogId} is gone`);
  return blog.likesCount;
}

describe('POST /likes/blog/{blogId}', () => {
  it('answers 200 with only the new likesCount, and counts one like per user', async () => {
    const blog = await publishedBlog();
    const first = await registerUser(ctx.app);
    const second = await registerUser(ctx.app);

    const firstLike = await api.as(first).post(likePath(blog._id));
    const secondLike = await api.as(second).post(likePath(blog._id));

    expect(firstLike.status).toBe(200);
    expect(firstLike.body).toEqual({ likesCount: 1 });
    expect(secondLike.status).toBe(200);
    expect(secondLike.body).toEqual({ likesCount: 2 });
    expect(await storedLikesCount(blog._id)).toBe(2);
    expect(await LikeModel.countDocuments({ blog: blog._id })).toBe(2);
  });

  it('refuses a second like by the same user with 400 BadRequest and leaves the count alone', async () => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);
    await api.as(user).post(likePath(blog._id)).expect(200);

    const again = await api.as(user).post(likePath(blog._id));

    expect(again.status).toBe(400);
    expect(again.body).toEqual({ code: 'BadRequest', message: expect.any(String) });
    expect(await storedLikesCount(blog._id)).toBe(1);
    expect(await LikeModel.countDocuments({ blog: blog._id })).toBe(1);
  });

  it('lets an admin like a draft', async () => {
    const blog = await draftBlog();

    const response = await api.as(admin).post(likePath(blog._id));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ likesCount: 1 });
  });

  it('answers 404 NotFound to a regular user liking a draft, and records nothing', async () => {
    const blog = await draftBlog();
    const user = await registerUser(ctx.app);

    const response = await api.as(user).post(likePath(blog._id));

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'NotFound', message: expect.any(String) });
    expect(await LikeModel.countDocuments({ blog: blog._id })).toBe(0);
    expect(await storedLikesCount(blog._id)).toBe(0);
  });
});

describe('DELETE /likes/blog/{blogId}', () => {
  it('answers 204 with an empty body and takes the like back', async () => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    await api.as(user).post(likePath(blog._id)).expect(200);
    await api.as(other).post(likePath(blog._id)).expect(200);

    const response = await api.as(user).delete(likePath(blog._id));

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(await storedLikesCount(blog._id)).toBe(1);
    expect(await LikeModel.exists({ blog: blog._id, user: user.user._id })).toBeNull();
    expect(await LikeModel.exists({ blog: blog._id, user: other.user._id })).not.toBeNull();
  });

  it('lets a user like again after unliking', async () => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);
    await api.as(user).post(likePath(blog._id)).expect(200);
    await api.as(user).delete(likePath(blog._id)).expect(204);

    const response = await api.as(user).post(likePath(blog._id));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ likesCount: 1 });
  });

  it('refuses to unlike a blog not liked with 400 BadRequest and leaves the count alone', async () => {
    const blog = await publishedBlog();
    const liker = await registerUser(ctx.app);
    const user = await registerUser(ctx.app);
    await api.as(liker).post(likePath(blog._id)).expect(200);

    const response = await api.as(user).delete(likePath(blog._id));

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: 'BadRequest', message: expect.any(String) });
    expect(await storedLikesCount(blog._id)).toBe(1);
  });

  it('answers 404 NotFound to a regular user unliking a draft', async () => {
    const blog = await draftBlog();
    const user = await registerUser(ctx.app);

    const response = await api.as(user).delete(likePath(blog._id));

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'NotFound', message: expect.any(String) });
  });

  it('lets an admin unlike a draft they liked', async () => {
    const blog = await draftBlog();
    await api.as(admin).post(likePath(blog._id)).expect(200);

    const response = await api.as(admin).delete(likePath(blog._id));

    expect(response.status).toBe(204);
    expect(await storedLikesCount(blog._id)).toBe(0);
  });
});

describe('likedByMe', () => {
  /** likedByMe of one blog as `viewer` sees it on each of the three blog reads. */
  async function likedByMeEverywhere(viewer: SignedInUser, blog: { _id: string; slug: string }) {
    const find = (blogs: { _id: string; likedByMe: boolean }[]) => {
      const found = blogs.find((candidate) => candidate._id === blog._id);
      if (!found) throw new Error(`blog ${blog._id} is not on the page`);
      return found.likedByMe;
    };
    const list = await api.as(viewer).get('/blogs/?limit=50').expect(200);
    const ofAuthor = await api.as(viewer).get(`/blogs/user/${admin.user._id}?limit=50`).expect(200);
    const single = await api.as(viewer).get(`/blogs/${blog.slug}`).expect(200);
    return { list: find(list.body.blogs), ofAuthor: find(ofAuthor.body.blogs), bySlug: single.body.blog.likedByMe };
  }

  it('is true for the user who liked and false for one who did not, on every blog read', async () => {
    const blog = await publishedBlog();
    const liker = await registerUser(ctx.app);
    const bystander = await registerUser(ctx.app);
    await api.as(liker).post(likePath(blog._id)).expect(200);

    expect(await likedByMeEverywhere(liker, blog)).toEqual({ list: true, ofAuthor: true, bySlug: true });
    expect(await likedByMeEverywhere(bystander, blog)).toEqual({ list: false, ofAuthor: false, bySlug: false });
  });

  it('is false again after the user unlikes', async () => {
    const blog = await publishedBlog();
    const liker = await registerUser(ctx.app);
    await api.as(liker).post(likePath(blog._id)).expect(200);
    expect(await likedByMeEverywhere(liker, blog)).toEqual({ list: true, ofAuthor: true, bySlug: true });

    await api.as(liker).delete(likePath(blog._id)).expect(204);

    expect(await likedByMeEverywhere(liker, blog)).toEqual({ list: false, ofAuthor: false, bySlug: false });
  });

  it("reports only the viewer's own likes among several blogs", async () => {
    const liked = await publishedBlog();
    const notLiked = await publishedBlog();
    const viewer = await registerUser(ctx.app);
    const other = await registerUser(ctx.app);
    await api.as(viewer).post(likePath(liked._id)).expect(200);
    await api.as(other).post(likePath(notLiked._id)).expect(200);

    expect(await likedByMeEverywhere(viewer, liked)).toEqual({ list: true, ofAuthor: true, bySlug: true });
    expect(await likedByMeEverywhere(viewer, notLiked)).toEqual({ list: false, ofAuthor: false, bySlug: false });
  });

  it("is true for an admin on a draft they liked, and the draft's likesCount shows it", async () => {
    const blog = await draftBlog();
    await api.as(admin).post(likePath(blog._id)).expect(200);

    const response = await api.as(admin).get(`/blogs/${blog.slug}`);

    expect(response.status).toBe(200);
    expect(response.body.blog).toMatchObject({ likedByMe: true, likesCount: 1, status: 'draft' });
  });
});

describe('likes and the blog they are on', () => {
  it("leave the blog's updatedAt alone: counting is not editing", async () => {
    const blog = await publishedBlog();
    const user = await registerUser(ctx.app);
    const before = (await BlogModel.findById(blog._id).lean())?.updatedAt;

    await api.as(user).post(likePath(blog._id)).expect(200);
    await api.as(user).delete(likePath(blog._id)).expect(204);

    expect((await BlogModel.findById(blog._id).lean())?.updatedAt).toEqual(before);
  });

  it('leave no like behind when the blog is deleted while it is being liked', async () => {
    const blog = await publishedBlog();
    const users = await Promise.all(Array.from({ length: 15 }, () => registerUser(ctx.app)));
    await api.as(users[0]).post(likePath(blog._id)).expect(200);

    const [deletion, ...likes] = await Promise.all([
      api.as(admin).delete(`/blogs/${blog._id}?permanent=true`),
      ...users.slice(1).map((user) => api.as(user).post(likePath(blog._id))),
    ]);

    expect(deletion.status).toBe(204);
    expect(
      likes.filter((response) => ![200, 404].includes(response.status)).map((response) => response.status),
    ).toEqual([]);
    expect(await LikeModel.countDocuments({ blog: blog._id })).toBe(0);
  });
});

describe('many users liking and unliking one blog at once', () => {
  it('keeps likesCount equal to the like records and to what the answers imply, never answering 500', async () => {
    // Arrange: 25 users; the first 10 have liked the blog already.
    const blog = await publishedBlog();
    const users = await Promise.all(Array.from({ length: 25 }, () => registerUser(ctx.app)));
    for (const user of users.slice(0, 10)) await api.as(user).post(likePath(blog._id)).expect(200);
    const initiallyLiked = users.map((_user, index) => (index < 10 ? 1 : 0));

    // Act: per user, requests that race one another and the other users'.
    //  0-4   liked      -> unlike, and unlike again (one 204, one 400)
    //  5-9   liked      -> like again (400)
    //  10-17 not liked  -> like twice (one 200, one 400)
    //  18-21 not liked  -> like and unlike at once (either order may win)
    //  22-24 not liked  -> unlike (400)
    const planned: { user: number; action: 'like' | 'unlike' }[] = [];
    users.forEach((_user, index) => {
      if (index < 5) planned.push({ user: index, action: 'unlike' }, { user: index, action: 'unlike' });
      else if (index < 10) planned.push({ user: index, action: 'like' });
      else if (index < 18) planned.push({ user: index, action: 'like' }, { user: index, action: 'like' });
      else if (index < 22) planned.push({ user: index, action: 'like' }, { user: index, action: 'unlike' });
      else planned.push({ user: index, action: 'unlike' });
    });
    const responses = await Promise.all(
      planned.map(({ user, action }) =>
        action === 'like'
          ? api.as(users[user]).post(likePath(blog._id))
          : api.as(users[user]).delete(likePath(blog._id)),
      ),
    );

    // Assert: every answer is one the API promises, and the counter agrees with the records and the answers.
    const statuses = responses.map((response) => response.status);
    const allowed = { like: [200, 400], unlike: [204, 400] };
    const answered = planned.map((plan, index) => ({ ...plan, status: statuses[index] }));
    expect(answered.filter(({ action, status }) => !allowed[action].includes(status))).toEqual([]);
    const finalState = [...initiallyLiked];
    planned.forEach(({ user, action }, index) => {
      if (action === 'like' && statuses[index] === 200) finalState[user] += 1;
      if (action === 'unlike' && statuses[index] === 204) finalState[user] -= 1;
    });
    expect(finalState.every((state) => state === 0 || state === 1)).toBe(true);
    // the cases whose outcome does not depend on the order
    expect(finalState.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(finalState.slice(5, 18)).toEqual(Array(13).fill(1));
    expect(finalState.slice(22)).toEqual([0, 0, 0]);

    const expectedLikers = users
      .filter((_user, index) => finalState[index] === 1)
      .map((user) => user.user._id)
      .sort();
    const records = await LikeModel.find({ blog: blog._id }).select('user').lean();
    expect(records.map((like) => String(like.user)).sort()).toEqual(expectedLikers);
    expect(await LikeModel.countDocuments({ blog: new Types.ObjectId(blog._id) })).toBe(expectedLikers.length);
    expect(await storedLikesCount(blog._id)).toBe(expectedLikers.length);
    const asAdmin = await api.as(admin).get(`/blogs/${blog.slug}`).expect(200);
    expect(asAdmin.body.blog.likesCount).toBe(expectedLikers.length);
  });
});
