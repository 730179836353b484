/**
 * What real sign-up and settings forms send, and what browsers really send (issue 23): `confirm_password`,
 * the response's names as aliases on PUT /users/current, 415 for a JSON route's body in another type, the
 * missing refresh cookie's message, and the log's warning about an origin CORS_ORIGINS does not list.
 */
import { captureLog, settle } from './helpers/log-capture';
import { createBlog } from './helpers/blogs';
import { expectFieldError } from './helpers/expectations';
import { useTestApp } from './helpers/test-app';
import { registerUser, uniqueEmail, type SignedInUser } from './helpers/users';

const LISTED_ORIGIN = 'http://spa.example.test';
const log = captureLog('warn');
const ctx = useTestApp({ env: { CORS_ORIGINS: LISTED_ORIGIN }, deps: { logger: log.logger } });
const api = ctx.api;
const updateProfile = (user: SignedInUser, body: object) => api.as(user).put('/users/current').send(body);
const admin = ctx.signedInAdmin();

describe('confirm_password', () => {
  it('register accepts a matching confirm_password, and refuses a different one with a field error, storing nothing', async () => {
    const email = uniqueEmail('confirm');
    const refused = await api
      .post('/auth/register')
      .send({ email, password: 'password123', confirm_password: 'password124' });
    expectFieldError(refused, 'confirm_password');
    expect(refused.body.errors.confirm_password.msg).toBe('Password confirmation does not match the password');
    expect(refused.body.errors.confirm_password.value).toBe(''); // a password is never echoed
    expect(Object.keys(refused.body.errors)).toEqual(['confirm_password']);
    expect((await api.post('/auth/login').send({ email, password: 'password123' })).status).toBe(404);

    const accepted = await api
      .post('/auth/register')
      .send({ email, password: 'password123', confirm_password: 'password123' });
    expect(accepted.status).toBe(201);
    expect((await api.post('/auth/login').send({ email, password: 'password123' })).status).toBe(200);
  });

  it('login does not set a password: confirm_password stays an unknown field there', async () => {
    const user = await registerUser(ctx.app);
    const response = await api
      .post('/auth/login')
      .send({ email: user.user.email, password: 'password123', confirm_password: 'password123' });
    expectFieldError(response, 'confirm_password');
    expect(response.body.errors.confirm_password.msg).toMatch(/^Unknown field "confirm_password"/);
  });

  it('PUT /users/current changes the password only when confirm_password matches', async () => {
    const user = await registerUser(ctx.app);
    const refused = await updateProfile(user, { password: 'new-password-1', confirm_password: 'new-password-2' });
    expectFieldError(refused, 'confirm_password');
    const email = user.user.email;
    expect((await api.post('/auth/login').send({ email, password: 'new-password-1' })).status).toBe(400);

    const accepted = await updateProfile(user, { password: 'new-password-1', confirm_password: 'new-password-1' });
    expect(accepted.status).toBe(200);
    expect((await api.post('/auth/login').send({ email, password: 'new-password-1' })).status).toBe(200);
  });

  it('a confirm_password without a password is refused: it confirms nothing', async () => {
    const user = await registerUser(ctx.app);
    expectFieldError(await updateProfile(user, { confirm_password: 'password123' }), 'confirm_password');
  });
});

describe("PUT /users/current accepts the response's names as aliases", () => {
  it('firstName, lastName and socialLinks: {...} update the profile like first_name, last_name and the flat links', async () => {
    const user = await registerUser(ctx.app);
    const response = await updateProfile(user, {
      firstName: ' Ada ',
      lastName: 'Lovelace',
      socialLinks: { website: 'https://ada.example.com', x: '' },
    });

    expect(response.status).toBe(200);
    expect(response.body.user).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
      socialLinks: { website: 'https://ada.example.com' },
    });
    expect((await api.as(user).get('/users/current')).body.user).toMatchObject({
      firstName: 'Ada',
      lastName: 'Lovelace',
    });

    // "" removes, as with the request names
    const removed = await updateProfile(user, { lastName: '', socialLinks: { website: '' } });
    expect(removed.status).toBe(200);
    expect(removed.body.user).not.toHaveProperty('lastName');
    expect(removed.body.user.socialLinks).toEqual({});
  });

  it('both forms may be sent when they agree; when they disagree, 400 naming the alias and nothing changes', async () => {
    const user = await registerUser(ctx.app);
    const agreeing = await updateProfile(user, { first_name: 'Ada', firstName: 'Ada' });
    expect(agreeing.status).toBe(200);
    expect(agreeing.body.user.firstName).toBe('Ada');

    const names = await updateProfile(user, { first_name: 'Ada', firstName: 'Grace', last_name: 'X' });
    expectFieldError(names, 'firstName');
    expect(names.body.errors.firstName.msg).toBe('firstName and first_name disagree: send one of them');

    const links = await updateProfile(user, {
      website: 'https://a.example.com',
      socialLinks: { website: 'https://b.example.com' },
    });
    expectFieldError(links, 'socialLinks.website');

    const current = (await api.as(user).get('/users/current')).body.user;
    expect(current).toMatchObject({ firstName: 'Ada', socialLinks: {} });
    expect(current).not.toHaveProperty('lastName');
  });

  it.each([
    ['a firstName over the bound of first_name', { firstName: 'x'.repeat(21) }, 'firstName'],
    [
      'a socialLinks URL that is not http(s)',
      { socialLinks: { website: 'javascript:alert(1)' } },
      'socialLinks.website',
    ],
    [
      'a socialLinks network the API does not know',
      { socialLinks: { myspace: 'https://myspace.com/ada' } },
      'socialLinks',
    ],
    ['socialLinks that is not an object', { socialLinks: 'https://ada.example.com' }, 'socialLinks'],
  ])('checks the aliases as the request names: refuses %s, changing nothing', async (_case, body, field) => {
    const user = await registerUser(ctx.app);

    expectFieldError(await updateProfile(user, body), field);

    const after = (await api.as(user).get('/users/current')).body.user;
    expect(after.socialLinks).toEqual({});
    expect(after.firstName).toBeUndefined();
  });
});

describe('415 for a JSON route whose body comes in another content type', () => {
  const expect415 = (response: { status: number; body: unknown }) => {
    expect(response.status).toBe(415);
    expect(response.body).toEqual({
      code: 'BadRequest',
      message: 'Request body must be sent as JSON, with the header Content-Type: application/json',
    });
  };

  it('register and login: a bare fetch (text/plain) and a form (x-www-form-urlencoded)', async () => {
    const email = uniqueEmail('plain');
    const body = JSON.stringify({ email, password: 'password123' });
    expect415(await api.post('/auth/register').set('Content-Type', 'text/plain;charset=UTF-8').send(body));
    expect415(await api.post('/auth/login').type('form').send({ email, password: 'password123' }));
    expect((await api.post('/auth/login').send({ email, password: 'password123' })).status).toBe(404); // nothing made
  });

  it('PUT /users/current does not answer 200 with the user unchanged', async () => {
    const user = await registerUser(ctx.app);
    const response = await api
      .as(user)
      .put('/users/current')
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify({ first_name: 'Ada' }));
    expect415(response);
    expect((await api.as(user).get('/users/current')).body.user).not.toHaveProperty('firstName');
  });

  it('a comment sent as a form', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const user = await registerUser(ctx.app);
    expect415(await api.as(user).post(`/comments/blog/${blog._id}`).type('form').send({ content: 'Nice' }));
  });

  it('a request without a body is unaffected, whatever its Content-Type', async () => {
    const user = await registerUser(ctx.app);
    const empty = await api.as(user).put('/users/current').set('Content-Type', 'text/plain').set('Content-Length', '0');
    expect(empty.status).toBe(200);
    expect((await api.as(user).put('/users/current')).status).toBe(200);
    expect((await updateProfile(user, { first_name: 'Ada' })).status).toBe(200);
  });

  it('the multipart routes keep taking multipart', async () => {
    expect((await createBlog(ctx.app, admin, { title: `Multipart ${process.pid}` })).title).toBe(
      `Multipart ${process.pid}`,
    );
  });
});

describe('refresh and logout without the cookie', () => {
  it('say what to check: credentials include, the same-site rule, docs/spa.md (code unchanged)', async () => {
    const user = await registerUser(ctx.app);
    for (const response of [await api.post('/auth/refresh-token'), await api.as(user).post('/auth/logout')]) {
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('AuthenticationError');
      expect(response.body.message).toMatch(/^Refresh token required/);
      expect(response.body.message).toContain("credentials: 'include'");
      expect(response.body.message).toContain('same site');
      expect(response.body.message).toContain('docs/spa.md');
    }
  });
});

describe('an origin CORS_ORIGINS does not list', () => {
  const warningsAbout = (origin: string) =>
    log
      .entries()
      .filter(
        (entry) => entry.level === 'warn' && entry.origin === origin && /CORS_ORIGINS/.test(String(entry.message)),
      );

  it('gets one warning line naming it, once per origin; listed and same-origin requests none', async () => {
    const stranger = `http://stranger-${process.pid}.example.test`;
    for (let i = 0; i < 3; i += 1) {
      const response = await api.get('/blogs/').set('Origin', stranger);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    }
    await api.get('/blogs/').set('Origin', LISTED_ORIGIN);
    await api.get('/blogs/').set('Origin', 'http://127.0.0.1').set('Host', '127.0.0.1');
    await settle();

    const warnings = warningsAbout(stranger);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0].message)).toContain(stranger);
    expect(warningsAbout(LISTED_ORIGIN)).toHaveLength(0);
    expect(warningsAbout('http://127.0.0.1')).toHaveLength(0);
  });
});
