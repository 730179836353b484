import bcrypt from 'bcrypt';
import mongoose from 'mongoose';
import request from 'supertest';
import { createApp } from '../src/app';
import { SessionModel } from '../src/models/session.model';
import { backfillEmailForms } from '../src/models/user.migrations';
import { UserModel } from '../src/models/user.model';
import { captureLog } from './helpers/log-capture';
import { useTestApp } from './helpers/test-app';
import { refreshCookieOf, registerUser, uniqueEmail } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;

const register = (body: unknown) => api.post('/auth/register').send(body as object);
const login = (body: unknown) => api.post('/auth/login').send(body as object);

describe('POST /auth/register', () => {
  it('answers 201 with accessToken and the user, and sets the refresh cookie', async () => {
    const email = uniqueEmail('Grace.Hopper');
    const response = await register({ email, password: 'password123' });

    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(['accessToken', 'user']);
    expect(response.body.accessToken.split('.')).toHaveLength(3);
    expect(response.body.user).toMatchObject({ email: email.toLowerCase(), role: 'user', socialLinks: {} });
    expect(response.body.user._id).toMatch(/^[0-9a-f]{24}$/);
    expect(response.body.user).not.toHaveProperty('password');
    expect(response.body.user).not.toHaveProperty('__v');
  });

  it('sets the refresh cookie HttpOnly, SameSite=Strict, on the auth path, for the refresh lifetime, not Secure outside production', async () => {
    const response = await register({ email: uniqueEmail(), password: 'password123' });
    const cookie = ([] as string[]).concat(response.headers['set-cookie'])[0];

    expect(cookie).toMatch(/^refreshToken=[\w-]+\.[\w-]+\.[\w-]+;/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/api/v1/auth');
    expect(cookie).toContain(`Max-Age=${7 * 24 * 3600}`);
    expect(cookie).not.toContain('Secure');
  });

  it('derives the username from the email local part, lower-cased and cut to 20 characters', async () => {
    const response = await register({ email: 'Very.Long.Name+tag_with_plus@example.com', password: 'password123' });
    expect(response.status).toBe(201);
    expect(response.body.user.username).toBe('very.long.name');

    const long = await register({ email: 'abcdefghijklmnopqrstuvwxyz@example.com', password: 'password123' });
    expect(long.body.user.username).toBe('abcdefghijklmnopqrst');
  });

  it('gives a second user with the same local part a distinct username of at most 20 characters', async () => {
    const first = await register({ email: 'same.name@one.example', password: 'password123' });
    const second = await register({ email: 'same.name@two.example', password: 'password123' });

    expect(first.body.user.username).toBe('same.name');
    expect(second.body.user.username).not.toBe('same.name');
    expect(second.body.user.username).toMatch(/^same\.name-[0-9a-f]{6}$/);
    expect(second.body.user.username.length).toBeLessThanOrEqual(20);
  });

  it('gives every one of many concurrent registrations with one local part a unique username', async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => register({ email: `racer@host${i}.example`, password: 'password123' })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(responses.map((r) => r.body.user.username)).size).toBe(6);
  });

  it('stores the email lower-cased and refuses the same email in another case with 400 on email', async () => {
    await register({ email: 'Case.Test@Example.com', password: 'password123' });
    const response = await register({ email: 'case.test@example.COM', password: 'password123' });

    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ValidationError');
    expect(response.body.errors.email).toMatchObject({ path: 'email', location: 'body', msg: expect.any(String) });
  });

  it('takes one mailbox written two ways as one account: an accent typed as a letter and a combining mark', async () => {
    // an address beyond ASCII is valid, yet not the document's `format: email`: an app the contract check does not wrap
    const plain = createApp({ config: ctx.buildApp({}).config, logger: ctx.logger });
    const email = 'ünï@example.com';
    const first = await request(plain)
      .post('/api/v1/auth/register')
      .send({ email: email.normalize('NFD').toUpperCase(), password: 'password123' });
    expect(first.status).toBe(201);
    expect(first.body.user.email).toBe(email);

    const again = await request(plain).post('/api/v1/auth/register').send({ email, password: 'password123' });
    expect(again.status).toBe(400);
    expect(Object.keys(again.body.errors)).toEqual(['email']);
    const login = await request(plain)
      .post('/api/v1/auth/login')
      .send({ email: email.normalize('NFD'), password: 'password123' });
    expect({ status: login.status, id: login.body.user?._id }).toEqual({ status: 200, id: first.body.user._id });
  });

  it('registers a whitelisted email as admin, comparing the whitelist case-insensitively', async () => {
    const response = await register({ email: 'chief@example.com', password: 'password123', role: 'admin' });
    expect(response.status).toBe(201);
    expect(response.body.user.role).toBe('admin');
  });

  it('refuses admin registration for an email not on the whitelist with 403 AuthorizationError', async () => {
    const email = uniqueEmail('intruder');
    const response = await register({ email, password: 'password123', role: 'admin' });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ code: 'AuthorizationError', message: expect.any(String) });

    // and nothing was written: the same email can still register as a user
    expect((await register({ email, password: 'password123' })).status).toBe(201);
  });

  it('registers role "user" explicitly', async () => {
    const response = await register({ email: uniqueEmail(), password: 'password123', role: 'user' });
    expect(response.status).toBe(201);
    expect(response.body.user.role).toBe('user');
  });

  describe('validation', () => {
    const expectFieldError = (response: request.Response, field: string) => {
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('ValidationError');
      const error = response.body.errors[field];
      expect(error).toEqual({
        type: 'field',
        value: expect.any(String),
        msg: expect.any(String),
        path: field,
        location: 'body',
      });
    };

    it.each([
      ['missing', undefined],
      ['not an email', 'not-an-email'],
      ['longer than 50 characters', `${'a'.repeat(39)}@example.com`],
      ['a number', 42],
      ['an operator object', { $gt: '' }],
      ['an array', ['a@example.com']],
      ['null', null],
    ])('refuses an email that is %s', async (_label, email) => {
      expectFieldError(await register({ email, password: 'password123' }), 'email');
    });

    it('accepts an email of exactly 50 characters', async () => {
      const email = `${'b'.repeat(38)}@example.com`;
      expect(email).toHaveLength(50);
      expect((await register({ email, password: 'password123' })).status).toBe(201);
    });

    it.each([
      ['missing', undefined],
      ['7 characters', 'short12'],
      ['a number', 12345678],
      ['an operator object', { $ne: null }],
      ['longer than 72 bytes', 'é'.repeat(37)],
    ])('refuses a password that is %s', async (_label, password) => {
      expectFieldError(await register({ email: uniqueEmail(), password }), 'password');
    });

    it('never echoes the submitted password in a validation error', async () => {
      const response = await register({ email: uniqueEmail(), password: 'short' });
      expect(response.body.errors.password.value).toBe('');
    });

    it('accepts a password of exactly 8 characters', async () => {
      expect((await register({ email: uniqueEmail(), password: '12345678' })).status).toBe(201);
    });

    it.each([['superuser'], [''], [{ $in: ['admin'] }]])('refuses role %p', async (role) => {
      expectFieldError(await register({ email: uniqueEmail(), password: 'password123', role }), 'role');
    });

    it('reports every invalid field at once, keyed by field', async () => {
      const response = await register({ email: 'nope', password: 'short' });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors).sort()).toEqual(['email', 'password']);
    });
  });
});

describe('POST /auth/login', () => {
  it('answers 200 with accessToken and the user, and sets the refresh cookie', async () => {
    const { user, password } = await registerUser(ctx.app);
    const response = await login({ email: user.email, password });

    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['accessToken', 'user']);
    expect(response.body.user._id).toBe(user._id);
    expect(response.body.user).not.toHaveProperty('password');
    expect(refreshCookieOf(response)).toMatch(/^refreshToken=/);
  });

  it('matches the email case-insensitively', async () => {
    const { user, password } = await registerUser(ctx.app);
    const response = await login({ email: user.email.toUpperCase(), password });
    expect(response.status).toBe(200);
  });

  it('answers 404 NotFound for an unknown email', async () => {
    const response = await login({ email: uniqueEmail('ghost'), password: 'password123' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'NotFound', message: expect.any(String) });
  });

  it('answers 400 ValidationError for a wrong password, without a cookie', async () => {
    const { user } = await registerUser(ctx.app);
    const response = await login({ email: user.email, password: 'wrong-password' });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ValidationError');
    expect(response.body.errors.password.value).toBe('');
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a password shorter than 8 characters with 400 before looking anything up', async () => {
    const response = await login({ email: uniqueEmail(), password: 'short' });
    expect(response.status).toBe(400);
    expect(response.body.errors.password).toBeDefined();
  });

  it('refuses operator objects instead of querying with them', async () => {
    await registerUser(ctx.app);
    const response = await login({ email: { $gt: '' }, password: { $gt: '' } });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors).sort()).toEqual(['email', 'password']);
  });

  it('accepts and ignores a valid role field, as register does', async () => {
    const { user, password } = await registerUser(ctx.app);
    const response = await login({ email: user.email, password, role: 'admin' });
    expect(response.status).toBe(200);
    expect(response.body.user.role).toBe('user');
  });
});

describe('a login while the password check runs', () => {
  /** Runs `meanwhile` once, while the next password comparison is under way. */
  function duringTheCheck(meanwhile: () => Promise<unknown>) {
    const compare = bcrypt.compare.bind(bcrypt) as (data: string, hash: string) => Promise<boolean>;
    return jest.spyOn(bcrypt, 'compare').mockImplementationOnce((async (data: string, hash: string) => {
      const matches = await compare(data, hash);
      await meanwhile();
      return matches;
    }) as never);
  }

  it.each([
    [
      'the password is changed',
      (userId: string) => UserModel.updateOne({ _id: userId }, { $set: { password: 'the hash of another password' } }),
    ],
    [
      'the account is being deleted',
      (userId: string) => UserModel.updateOne({ _id: userId }, { $set: { deletingAt: new Date() } }),
    ],
  ])('opens no session when %s meanwhile: 400, as a wrong password', async (_case, change) => {
    const { user, password } = await registerUser(ctx.app);
    const spy = duringTheCheck(() => change(user._id));

    const response = await login({ email: user.email, password });
    spy.mockRestore();

    expect(response.status).toBe(400);
    expect(response.body.errors.password.msg).toBe('Email or password is incorrect');
    expect(response.headers['set-cookie']).toBeUndefined();
    // the registration's own session only
    expect(await SessionModel.countDocuments({ user: user._id })).toBe(1);
  });

  it('refuses a refresh of a session its account outlived, and ends it', async () => {
    const { user, refreshCookie } = await registerUser(ctx.app);
    await UserModel.deleteOne({ _id: user._id });

    const response = await api.post('/auth/refresh-token').set('Cookie', refreshCookie);

    expect(response.status).toBe(401);
    expect(await SessionModel.countDocuments({ user: user._id })).toBe(0);
  });
});

describe('POST /auth/refresh-token', () => {
  it('answers 200 with a new access token that works', async () => {
    const { refreshCookie } = await registerUser(ctx.app);
    const response = await api.post('/auth/refresh-token').set('Cookie', refreshCookie);

    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['accessToken']);
    const me = await api.as(response.body.accessToken).get('/users/current');
    expect(me.status).toBe(200);
  });

  it('answers 401 without the cookie', async () => {
    const response = await api.post('/auth/refresh-token');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ code: 'AuthenticationError', message: expect.any(String) });
  });

  it('answers 400 ValidationError when the cookie is not a JWT', async () => {
    const response = await api.post('/auth/refresh-token').set('Cookie', 'refreshToken=not-a-jwt');
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ValidationError');
    expect(response.body.errors.refreshToken).toMatchObject({ location: 'cookies', path: 'refreshToken', value: '' });
  });

  it('refuses an access token presented as the refresh token with 401', async () => {
    const { accessToken } = await registerUser(ctx.app);
    const response = await api.post('/auth/refresh-token').set('Cookie', `refreshToken=${accessToken}`);
    expect(response.status).toBe(401);
  });

  it('answers 401 after logout with the old cookie', async () => {
    const signedIn = await registerUser(ctx.app);
    await api.as(signedIn).post('/auth/logout').set('Cookie', signedIn.refreshCookie).expect(200);
    const response = await api.post('/auth/refresh-token').set('Cookie', signedIn.refreshCookie);
    expect(response.status).toBe(401);
  });
});

describe('addresses stored before they were written in one form', () => {
  it('are written in it at start-up, so their owners still sign in; a second account of one mailbox is logged', async () => {
    const now = new Date();
    const stored = async (email: string, username: string) => ({
      _id: new mongoose.Types.ObjectId(),
      username,
      usernameKey: username.toLowerCase(),
      email,
      password: await bcrypt.hash('password123', 4),
      role: 'user',
      deletingAt: null,
      createdAt: now,
      updatedAt: now,
    });
    const decomposed = await stored('zoë@example.org'.normalize('NFD'), 'zoe1');
    const composed = await stored('kïm@example.org', 'kim1');
    const twin = await stored('kïm@example.org'.normalize('NFD'), 'kim2');
    await UserModel.collection.insertMany([decomposed, composed, twin]);
    const log = captureLog('info');

    await backfillEmailForms(log.logger);

    const emails = await UserModel.collection
      .find({ _id: { $in: [decomposed._id, composed._id, twin._id] } }, { sort: { username: 1 } })
      .toArray();
    expect(emails.map((user) => user.email)).toEqual([
      'kïm@example.org',
      'kïm@example.org'.normalize('NFD'),
      'zoë@example.org',
    ]);
    expect(log.entries()).toContainEqual(expect.objectContaining({ level: 'warn', userId: String(twin._id) }));
    // beyond ASCII: an app the contract check does not wrap (see above)
    const plain = createApp({ config: ctx.buildApp({}).config, logger: ctx.logger });
    const login = await request(plain)
      .post('/api/v1/auth/login')
      .send({ email: 'ZOË@example.org', password: 'password123' });
    expect(login.status).toBe(200);
  });
});

describe('answers that carry tokens', () => {
  it('are kept by no cache: register, login and refresh answer Cache-Control: no-store', async () => {
    const email = uniqueEmail('no-store');
    const registered = await api.post('/auth/register').send({ email, password: 'long enough' });
    const login = await api.post('/auth/login').send({ email, password: 'long enough' });
    const refreshed = await api.post('/auth/refresh-token').set('Cookie', login.headers['set-cookie'][0].split(';')[0]);

    for (const answer of [registered, login, refreshed]) {
      expect(answer.body.accessToken).toEqual(expect.any(String));
      expect(answer.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('POST /auth/logout', () => {
  it('answers 200 with a message, clears the cookie and ends the session', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.as(signedIn).post('/auth/logout').set('Cookie', signedIn.refreshCookie);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: expect.any(String) });
    const cleared = ([] as string[]).concat(response.headers['set-cookie'])[0];
    expect(cleared).toMatch(/^refreshToken=;/);
    expect(cleared).toContain('Path=/api/v1/auth');
    expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970/);

    // the access token of the closed session stops working at once
    const me = await api.as(signedIn).get('/users/current');
    expect(me.status).toBe(401);
  });

  it('ends only that session: another login of the same user keeps working', async () => {
    const first = await registerUser(ctx.app);
    const second = await login({ email: first.user.email, password: first.password });
    await api.as(first).post('/auth/logout').set('Cookie', first.refreshCookie).expect(200);

    const me = await api.as(second.body.accessToken).get('/users/current');
    expect(me.status).toBe(200);
  });

  it('answers 401 without an access token', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.post('/auth/logout').set('Cookie', signedIn.refreshCookie);
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('AuthenticationError');
  });

  it('answers 401 without the refresh cookie', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.as(signedIn).post('/auth/logout');
    expect(response.status).toBe(401);
  });

  it('answers 400 ValidationError when the refresh cookie is not a JWT', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.as(signedIn).post('/auth/logout').set('Cookie', 'refreshToken=garbage');
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ValidationError');
  });

  it("answers 401 for another user's refresh cookie and leaves that session alone", async () => {
    const alice = await registerUser(ctx.app);
    const bob = await registerUser(ctx.app);
    const response = await api.as(alice).post('/auth/logout').set('Cookie', bob.refreshCookie);
    expect(response.status).toBe(401);

    const refresh = await api.post('/auth/refresh-token').set('Cookie', bob.refreshCookie);
    expect(refresh.status).toBe(200);
  });
});
