/**
 * Unknown fields in request bodies are refused with 400 ValidationError naming each of them, so a client's
 * mistake (nickname for username, a read-only role) surfaces at once instead of a 200 that changed nothing.
 */
import { buildOpenApiDocument } from '../src/openapi/document';
import type { JsonSchema } from '../src/openapi/types';
import { createBlog } from './helpers/blogs';
import { makeImage } from './helpers/images';
import { useTestApp } from './helpers/test-app';
import { refreshCookieOf, registerUser, uniqueEmail } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;
const user = ctx.signedInUser();
const admin = ctx.signedInAdmin();

const unknownField = (path: string, _sent: string) => ({
  type: 'field',
  value: '',
  path,
  location: 'body',
  msg: expect.stringMatching(new RegExp(`^Unknown field "${path}"`)),
});

describe('PUT /users/current', () => {
  it('refuses a field it does not know (nickname) with 400 and changes nothing', async () => {
    const response = await api.as(user).put('/users/current').send({ nickname: 'Ada', last_name: 'Lovelace' });

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: 'ValidationError', errors: { nickname: unknownField('nickname', 'Ada') } });
    const current = await api.as(user).get('/users/current');
    expect(current.body.user).not.toHaveProperty('lastName');
  });

  it('refuses the read-only role and every other unknown field, each under its own name, before checking the known ones', async () => {
    const response = await api
      .as(user)
      .put('/users/current')
      .send({ role: 'admin', links: { x: 'https://x.com/ada' }, username: 'bad name!' });

    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors).sort()).toEqual(['links', 'role']);
    expect(response.body.errors.role).toEqual(unknownField('role', 'admin'));
    expect(response.body.errors.links).toEqual(unknownField('links', '{"x":"https://x.com/ada"}'));
    expect((await api.as(user).get('/users/current')).body.user.role).toBe('user');
  });

  it('still accepts every documented field', async () => {
    const response = await api
      .as(user)
      .put('/users/current')
      .send({ first_name: 'Ada', last_name: 'Lovelace', website: 'https://ada.example.com', x: '' });

    expect(response.status).toBe(200);
    expect(response.body.user).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      socialLinks: { website: 'https://ada.example.com' },
    });
  });
});

describe('POST /auth/register and /auth/login', () => {
  it('accept role, as the interface allows, and refuse anything else', async () => {
    const email = uniqueEmail();
    expect((await api.post('/auth/register').send({ email, password: 'password123', role: 'user' })).status).toBe(201);
    expect((await api.post('/auth/login').send({ email, password: 'password123', role: 'user' })).status).toBe(200);

    const response = await api.post('/auth/login').send({ email, password: 'password123', remember: true });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual({ remember: unknownField('remember', 'true') });
  });

  it("never echo an unknown field's value: it may be a misnamed secret", async () => {
    const response = await api
      .post('/auth/register')
      .send({ email: uniqueEmail(), password: 'password123', refreshToken: 'secret.token.value' });
    expect(response.status).toBe(400);
    expect(response.body.errors.refreshToken.value).toBe('');
  });
});

describe('bodies that take no fields, and comments', () => {
  it('refuse fields on refresh-token and on liking a blog', async () => {
    const refresh = await api.post('/auth/refresh-token').set('Cookie', user.refreshCookie).send({ token: 'x' });
    expect(refresh.status).toBe(400);
    expect(refresh.body.errors).toEqual({ token: unknownField('token', 'x') });

    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const like = await api.as(user).post(`/likes/blog/${blog._id}`).send({ like: true });
    expect(like.status).toBe(400);
    expect(like.body.errors).toEqual({ like: unknownField('like', 'true') });
  });

  it('refuse a comment with a field besides content', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const response = await api.as(user).post(`/comments/blog/${blog._id}`).send({ content: 'Hi', text: 'Hi' });

    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual({ text: unknownField('text', 'Hi') });
  });
});

describe('writes that take no body (docs/spa.md: "anything on refresh or logout", every DELETE)', () => {
  /** A user of its own for each test, so that nothing one test ends or deletes touches another. */
  const freshUser = () => registerUser(ctx.app);
  const refreshes = (cookie: string) => api.post('/auth/refresh-token').set('Cookie', cookie);

  it('refuse a form or a text body on refresh-token with 415, setting no cookie', async () => {
    const owner = await freshUser();
    const form = await refreshes(owner.refreshCookie)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send('refreshToken=abc&x=1');
    const text = await refreshes(owner.refreshCookie).set('Content-Type', 'text/plain').send('hello');

    for (const response of [form, text]) {
      expect(response.status).toBe(415);
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuse a text body on logout with 415, and the session lives on', async () => {
    const owner = await freshUser();
    const response = await api
      .as(owner)
      .post('/auth/logout')
      .set('Cookie', owner.refreshCookie)
      .set('Content-Type', 'text/plain')
      .send('hello');

    expect(response.status).toBe(415);
    expect((await refreshes(owner.refreshCookie)).status).toBe(200);
  });

  it('refuse {"all": true} on ending the other sessions with 400, and they live on', async () => {
    const owner = await freshUser();
    const elsewhere = await api.post('/auth/login').send({ email: owner.user.email, password: owner.password });
    const response = await api.as(owner).delete('/auth/sessions').send({ all: true });

    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual({ all: unknownField('all', 'true') });
    expect((await refreshes(refreshCookieOf(elsewhere))).status).toBe(200);
  });

  it('refuse a password "confirming" an account deletion, or a form, and the account stays', async () => {
    const owner = await freshUser();
    const confirmed = await api.as(owner).delete('/users/current').send({ password: owner.password });
    const field = await api.as(owner).delete('/users/current').send({ x: 1 });
    const form = await api.as(owner).delete('/users/current').type('form').send('x=1');

    expect(confirmed.status).toBe(400);
    expect(confirmed.body.errors).toEqual({ password: unknownField('password', owner.password) });
    expect(field.body.errors).toEqual({ x: unknownField('x', '1') });
    expect(form.status).toBe(415);
    expect((await api.as(owner).get('/users/current')).status).toBe(200);
  });

  it('refuse a JSON array as they refuse an object with fields', async () => {
    const owner = await freshUser();
    const response = await api
      .as(owner)
      .delete('/users/current')
      .send([{ password: owner.password }]);

    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ValidationError');
    expect((await api.as(owner).get('/users/current')).status).toBe(200);
  });

  it("accept no body, or an empty JSON object, as the interface's clients send", async () => {
    const owner = await freshUser();
    await api.post('/auth/login').send({ email: owner.user.email, password: owner.password }).expect(200);

    expect((await refreshes(owner.refreshCookie).send({})).status).toBe(200);
    // a type without content is no body
    expect((await refreshes(owner.refreshCookie).set('Content-Type', 'text/plain')).status).toBe(200);
    expect((await api.as(owner).delete('/auth/sessions').send({})).status).toBe(204);
    expect((await api.as(owner).delete('/users/current').send({})).status).toBe(204);
    expect((await api.as(owner).get('/users/current')).status).toBe(401);
  });
});

describe('the blog forms (multipart)', () => {
  it('refuse an unknown text field on create and on update, naming it', async () => {
    const created = await api
      .as(admin)
      .post('/blogs/')
      .field('title', 'With a typo')
      .field('content', '<p>Hi</p>')
      .field('statuss', 'published')
      .attach('banner_image', await makeImage('png'), 'banner.png');
    expect(created.status).toBe(400);
    expect(created.body.errors).toEqual({ statuss: unknownField('statuss', 'published') });

    const blog = await createBlog(ctx.app, admin);
    const updated = await api.as(admin).put(`/blogs/${blog._id}`).field('slug', 'mine');
    expect(updated.status).toBe(400);
    expect(updated.body.errors).toEqual({ slug: unknownField('slug', 'mine') });
  });
});

describe('the OpenAPI document', () => {
  it('says additionalProperties: false for every request body', () => {
    const document = buildOpenApiDocument();
    const bodies = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>)
        .filter((operation) => typeof operation === 'object' && operation?.requestBody)
        .flatMap((operation) => Object.values(operation.requestBody!.content).map((media) => media.schema)),
    );
    expect(bodies.length).toBeGreaterThanOrEqual(6);
    for (const schema of bodies) expect(schema).toMatchObject({ additionalProperties: false });
  });
});

describe('odd field names', () => {
  it('are refused with 400 like any other unknown field, never a 500', async () => {
    const response = await api
      .as(user)
      .put('/users/current')
      .set('Content-Type', 'application/json')
      .send('{"a.b": 1, "c[0]": 2, "__proto__": {"x": 1}, "": 3, "constructor": 4, "*": 5}');

    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors).sort()).toEqual(['', '*', '__proto__', 'a.b', 'c[0]', 'constructor']);
    expect(response.body.errors['a.b']).toEqual(unknownField('a.b', '1'));
  });
});

describe('a body of thousands of unknown fields', () => {
  it('names the first 20 only, says how many more there were, and answers far smaller than the body', async () => {
    const fields = Array.from({ length: 3000 }, (_, i) => [`f${i}`, 1]);
    const body = JSON.stringify(Object.fromEntries(fields));
    const response = await api.as(user).put('/users/current').set('Content-Type', 'application/json').send(body);

    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors)).toEqual(fields.slice(0, 20).map(([name]) => name));
    expect(response.body.errors.f19.msg).toMatch(/; 2980 more unknown fields not listed$/);
    expect(response.body.errors.f0.msg).not.toMatch(/more unknown fields/);
    expect(JSON.stringify(response.body).length).toBeLessThan(body.length / 4);
  });
});
