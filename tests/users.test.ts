import { expectFieldError } from './helpers/expectations';
import { useTestApp } from './helpers/test-app';
import { registerUser } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();

const UNKNOWN_ID = '5f0000000000000000000000';

describe('GET /users/current', () => {
  it('answers 200 with the signed-in user, without the password hash', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.as(signedIn).get('/users/current');

    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['user']);
    expect(response.body.user).toEqual(signedIn.user);
    expect(JSON.stringify(response.body)).not.toMatch(/password|\$2[aby]\$/);
  });

  it.each(['bearer', 'BEARER'])('takes the scheme written %s: its name is case-insensitive in HTTP', async (scheme) => {
    const signedIn = await registerUser(ctx.app);

    const response = await api.get('/users/current').set('Authorization', `${scheme} ${signedIn.accessToken}`);

    expect(response.status).toBe(200);
    expect(response.body.user._id).toBe(signedIn.user._id);
  });

  it.each([
    ['no Authorization header', {}, 'Access token required'],
    ['a lower-case bearer that is not a JWT', { Authorization: 'bearer not-a-jwt' }, 'Access token is invalid'],
    ['another scheme', { Authorization: 'Token abc' }, 'Access token required'],
    ['an empty bearer', { Authorization: 'Bearer ' }, 'Access token required'],
    ['a bearer that is not a JWT', { Authorization: 'Bearer not-a-jwt' }, 'Access token is invalid'],
    ['a JWT not of this API', { Authorization: 'Bearer a.b.c' }, 'Access token is invalid'],
  ])('answers 401 AuthenticationError with %s', async (_label, headers, message) => {
    const response = await api.get('/users/current').set(headers);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ code: 'AuthenticationError', message });
  });
});

describe('PUT /users/current', () => {
  const ADA_LINKS = {
    website: 'https://ada.example.com',
    x: 'https://x.com/ada',
    youtube: 'https://youtube.com/@ada',
    linkedin: 'https://linkedin.com/in/ada',
    facebook: 'https://facebook.com/ada',
    instagram: 'https://instagram.com/ada',
  };

  it('maps first_name, last_name and flat social links onto firstName, lastName and socialLinks', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api
      .as(signedIn)
      .put('/users/current')
      .send({ first_name: 'Ada', last_name: 'Lovelace', ...ADA_LINKS });

    expect(response.status).toBe(200);
    expect(response.body.user).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', socialLinks: ADA_LINKS });
    expect(response.body.user).not.toHaveProperty('first_name');
    expect(response.body.user).not.toHaveProperty('password');
  });

  it('stores the social links: the next read of the user shows them', async () => {
    const signedIn = await registerUser(ctx.app);
    await api.as(signedIn).put('/users/current').send(ADA_LINKS).expect(200);

    const reread = await api.as(signedIn).get('/users/current');

    expect(reread.body.user.socialLinks.x).toBe('https://x.com/ada');
  });

  it('clears an optional field sent as an empty string and leaves the others', async () => {
    const signedIn = await registerUser(ctx.app);
    await api.as(signedIn).put('/users/current').send({ first_name: 'Ada', website: 'https://a.example' }).expect(200);
    const response = await api.as(signedIn).put('/users/current').send({ website: '' });

    expect(response.status).toBe(200);
    expect(response.body.user.firstName).toBe('Ada');
    expect(response.body.user.socialLinks).toEqual({});
  });

  it('changes username and email, lower-casing the email', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api
      .as(signedIn)
      .put('/users/current')
      .send({ username: 'New_Name-1', email: 'Renamed.User@Example.com' });

    expect(response.status).toBe(200);
    expect(response.body.user).toMatchObject({ username: 'New_Name-1', email: 'renamed.user@example.com' });
  });

  it("refuses another user's username or email with 400 ValidationError on that field", async () => {
    const taken = await registerUser(ctx.app);
    const signedIn = await registerUser(ctx.app);

    const byName = await api.as(signedIn).put('/users/current').send({ username: taken.user.username });
    expect(byName.status).toBe(400);
    expect(byName.body.errors.username).toMatchObject({ path: 'username', location: 'body' });

    const byEmail = await api.as(signedIn).put('/users/current').send({ email: taken.user.email });
    expect(byEmail.status).toBe(400);
    expect(byEmail.body.errors.email).toMatchObject({ path: 'email', location: 'body' });
  });

  it('changes the password: the new one logs in, the old one no longer does', async () => {
    const signedIn = await registerUser(ctx.app);
    await api.as(signedIn).put('/users/current').send({ password: 'a-new-password' }).expect(200);

    const oldLogin = await api.post('/auth/login').send({ email: signedIn.user.email, password: signedIn.password });
    expect(oldLogin.status).toBe(400);
    const newLogin = await api.post('/auth/login').send({ email: signedIn.user.email, password: 'a-new-password' });
    expect(newLogin.status).toBe(200);
  });

  it("a password change ends the user's other sessions and keeps the current one", async () => {
    const first = await registerUser(ctx.app);
    const otherLogin = await api.post('/auth/login').send({ email: first.user.email, password: first.password });
    const other = {
      accessToken: otherLogin.body.accessToken,
      cookie: otherLogin.headers['set-cookie'][0].split(';')[0],
    };

    await api.as(first).put('/users/current').send({ password: 'changed-password' }).expect(200);

    expect((await api.get('/users/current').set('Authorization', `Bearer ${other.accessToken}`)).status).toBe(401);
    expect((await api.post('/auth/refresh-token').set('Cookie', other.cookie)).status).toBe(401);
    expect((await api.as(first).get('/users/current')).status).toBe(200);
    expect((await api.post('/auth/refresh-token').set('Cookie', first.refreshCookie)).status).toBe(200);
  });

  it('takes one of two passwords changed at once from two devices, and keeps its device signed in alone', async () => {
    const owner = await registerUser(ctx.app);
    const devices = await Promise.all(
      ['a', 'b', 'c'].map(async (name) => {
        const login = await api.post('/auth/login').send({ email: owner.user.email, password: owner.password });
        return { password: `password-of-device-${name}`, accessToken: login.body.accessToken as string };
      }),
    );
    const bearer = (device: { accessToken: string }) => `Bearer ${device.accessToken}`;

    const answers = await Promise.all(
      devices.map((device) =>
        api.put('/users/current').set('Authorization', bearer(device)).send({ password: device.password }),
      ),
    );

    // whatever the order the changes land in, one holds; the others changed nothing, and their sessions end
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400]);
    const winner = devices[answers.findIndex((answer) => answer.status === 200)];
    for (const [index, device] of devices.entries()) {
      const expected = device === winner ? 200 : 401;
      expect({ index, status: (await api.get('/users/current').set('Authorization', bearer(device))).status }).toEqual({
        index,
        status: expected,
      });
      const login = await api.post('/auth/login').send({ email: owner.user.email, password: device.password });
      expect({ index, login: login.status }).toEqual({ index, login: device === winner ? 200 : 400 });
    }
  });

  it('keeps a form sent twice at once signed in: the change that lost is told nothing changed', async () => {
    const owner = await registerUser(ctx.app);
    const passwords = ['double-click-one', 'double-click-two'];

    const answers = await Promise.all(
      passwords.map((password) => api.as(owner).put('/users/current').send({ password })),
    );

    expect(answers.map((answer) => answer.status)).not.toContain(401);
    expect(answers.map((answer) => answer.status)).toContain(200);
    expect((await api.as(owner).get('/users/current')).status).toBe(200);
    for (const [index, answer] of answers.entries()) {
      if (answer.status === 200) continue;
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ code: 'BadRequest', message: expect.stringContaining('nothing changed') });
      const login = await api.post('/auth/login').send({ email: owner.user.email, password: passwords[index] });
      expect(login.status).toBe(400);
    }
  });

  it('answers 200 and changes nothing for an empty body', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.as(signedIn).put('/users/current').send({});
    expect(response.status).toBe(200);
    expect(response.body.user.username).toBe(signedIn.user.username);
  });

  it('refuses fields that are not updatable (role, _id) with 400 naming each, and changes nothing (issue 12)', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.as(signedIn).put('/users/current').send({ role: 'admin', _id: UNKNOWN_ID });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors).sort()).toEqual(['_id', 'role']);
    const current = await api.as(signedIn).get('/users/current');
    expect(current.body.user.role).toBe('user');
  });

  describe('validation', () => {
    it.each([
      ['username', 'a'.repeat(21)],
      ['username', 'has space'],
      ['username', ''],
      ['username', { $ne: '' }],
      ['email', 'not-an-email'],
      ['email', `${'c'.repeat(39)}@example.com`],
      ['password', 'short'],
      ['password', 12345678],
      ['first_name', 'f'.repeat(21)],
      ['last_name', 'l'.repeat(21)],
      ['first_name', ['array']],
      ['website', 'not a url'],
      ['website', 'javascript:alert(1)'],
      ['facebook', `https://facebook.com/${'p'.repeat(80)}`],
      ['instagram', 42],
      ['linkedin', 'ftp://linkedin.com/in/x'],
      ['x', { $gt: '' }],
      ['youtube', 'youtube'],
    ])('refuses %s = %p with 400 ValidationError on that field', async (field, value) => {
      const signedIn = await registerUser(ctx.app);
      const response = await api
        .as(signedIn)
        .put('/users/current')
        .send({ [field]: value });

      expectFieldError(response, field);
    });

    it('accepts names of exactly 20 characters and a link of exactly 100', async () => {
      const signedIn = await registerUser(ctx.app);
      const link = `https://example.com/${'p'.repeat(80)}`;
      expect(link).toHaveLength(100);
      const response = await api
        .as(signedIn)
        .put('/users/current')
        .send({ first_name: 'f'.repeat(20), last_name: 'l'.repeat(20), website: link });
      expect(response.status).toBe(200);
    });
  });
});

describe('DELETE /users/current', () => {
  it('answers 204 with no body, deletes the account and ends its sessions', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.as(signedIn).delete('/users/current');

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await api.as(signedIn).get('/users/current')).status).toBe(401);
    expect((await api.post('/auth/refresh-token').set('Cookie', signedIn.refreshCookie)).status).toBe(401);
    expect((await api.as(admin).get(`/users/${signedIn.user._id}`)).status).toBe(404);
    const relogin = await api.post('/auth/login').send({ email: signedIn.user.email, password: signedIn.password });
    expect(relogin.status).toBe(404);
  });
});

describe('GET /users/ (admin)', () => {
  it('answers 200 with a page of users, newest first, with defaults 20 and 0 echoed', async () => {
    const created = [await registerUser(ctx.app), await registerUser(ctx.app), await registerUser(ctx.app)];
    const response = await api.as(admin).get('/users/');

    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['limit', 'offset', 'total', 'users']);
    expect(response.body).toMatchObject({ limit: 20, offset: 0 });
    expect(response.body.total).toBeGreaterThanOrEqual(4);
    const ids = response.body.users.map((user: { _id: string }) => user._id);
    expect(ids.slice(0, 3)).toEqual(created.map((user) => user.user._id).reverse());
    expect(JSON.stringify(response.body)).not.toMatch(/"password"/);
  });

  it('pages with limit and offset', async () => {
    const all = await api.as(admin).get('/users?limit=50');
    const page = await api.as(admin).get('/users?limit=2&offset=1');

    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ limit: 2, offset: 1, total: all.body.total });
    expect(page.body.users.map((u: { _id: string }) => u._id)).toEqual(
      all.body.users.slice(1, 3).map((u: { _id: string }) => u._id),
    );
  });

  it('answers an empty page past the end', async () => {
    const response = await api.as(admin).get('/users?offset=100000');
    expect(response.status).toBe(200);
    expect(response.body.users).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=51', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['limit=5&limit=6', 'limit'],
  ])('refuses ?%s with 400 ValidationError on %s', async (query, field) => {
    const response = await api.as(admin).get(`/users?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ValidationError');
    expect(response.body.errors[field]).toMatchObject({ path: field, location: 'query' });
  });

  it('accepts the bounds limit=1 and limit=50', async () => {
    expect((await api.as(admin).get('/users?limit=1')).body.users).toHaveLength(1);
    expect((await api.as(admin).get('/users?limit=50')).status).toBe(200);
  });
});

describe('GET /users/{userId} (admin)', () => {
  it('answers 200 with the user', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.as(admin).get(`/users/${signedIn.user._id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ user: signedIn.user });
  });

  it('answers 403 to a regular user, even for their own id', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.as(signedIn).get(`/users/${signedIn.user._id}`);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('AuthorizationError');
  });
});

describe('DELETE /users/{userId} (admin)', () => {
  it('answers 204, deletes the account and ends its sessions', async () => {
    const victim = await registerUser(ctx.app);
    const response = await api.as(admin).delete(`/users/${victim.user._id}`);

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await api.as(admin).get(`/users/${victim.user._id}`)).status).toBe(404);
    expect((await api.as(victim).get('/users/current')).status).toBe(401);
    expect((await api.post('/auth/refresh-token').set('Cookie', victim.refreshCookie)).status).toBe(401);
  });
});
