/**
 * Sessions in view (GET /auth/sessions, DELETE /auth/sessions[/{id}]): where a user is signed in, and
 * ending one or all the others at once; and the current password that REQUIRE_CURRENT_PASSWORD asks
 * for before PUT /users/current changes the password or the email.
 */
import { SessionModel } from '../src/models/session.model';
import { agent } from './helpers/agent';
import { useTestApp } from './helpers/test-app';
import { refreshCookieOf, registerUser, uniqueEmail, type SignedInUser } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:135.0) Gecko/20100101 Firefox/135.0';
const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_2 like Mac OS X) Mobile/15E148 ' + 'x'.repeat(300);

/** A second sign-in of the same account, from another browser. */
async function loginFrom(user: SignedInUser, userAgent: string): Promise<SignedInUser> {
  const response = await api.post('/auth/login').set('User-Agent', userAgent).send({
    email: user.user.email,
    password: user.password,
  });
  expect(response.status).toBe(200);
  return { ...user, accessToken: response.body.accessToken, refreshCookie: refreshCookieOf(response) };
}

async function signUpFrom(userAgent: string): Promise<SignedInUser> {
  const password = 'password123';
  const response = await api
    .post('/auth/register')
    .set('User-Agent', userAgent)
    .send({ email: uniqueEmail(), password });
  expect(response.status).toBe(201);
  return {
    accessToken: response.body.accessToken,
    refreshCookie: refreshCookieOf(response),
    user: response.body.user,
    password,
  };
}

const refresh = (user: SignedInUser) => api.post('/auth/refresh-token').set('Cookie', user.refreshCookie);
const sessionsOf = async (user: SignedInUser) => {
  const response = await api.as(user).get('/auth/sessions');
  expect(response.status).toBe(200);
  return response.body.sessions as Array<Record<string, unknown>>;
};

describe('GET /auth/sessions', () => {
  it('lists two sign-ins from two browsers, newest first, and marks the one asking as current', async () => {
    const laptop = await signUpFrom(FIREFOX);
    const phone = await loginFrom(laptop, PHONE);

    const sessions = await sessionsOf(laptop);

    expect(sessions).toEqual([
      {
        _id: expect.any(String),
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
        userAgent: PHONE.slice(0, 200),
        ip: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
        current: false,
      },
      expect.objectContaining({ userAgent: FIREFOX, current: true }),
    ]);
    expect((await sessionsOf(phone)).map((session) => session.current)).toEqual([true, false]);
  });

  it('shows an IPv4 client as people write it, not as a dual-stack listener sees it (::ffff:203.0.113.9)', async () => {
    const behindProxy = ctx.buildApp({ TRUST_PROXY: 'true' }).app;
    const user = await registerUser(ctx.app);
    const viaDualStack = await agent(behindProxy)
      .post('/auth/login')
      .set('X-Forwarded-For', '::ffff:203.0.113.9')
      .send({ email: user.user.email, password: user.password })
      .expect(200);

    const sessions = await agent(behindProxy).as(viaDualStack.body.accessToken).get('/auth/sessions').expect(200);

    expect(sessions.body.sessions[0]).toMatchObject({ current: true, ip: '203.0.113.9' });
  });

  it('shows null for what sessions opened before these fields were recorded lack', async () => {
    const old = await registerUser(ctx.app);
    const now = await loginFrom(old, FIREFOX);
    await SessionModel.updateMany(
      { user: old.user._id, userAgent: { $ne: FIREFOX } },
      {
        $unset: { userAgent: 1, ip: 1, lastUsedAt: 1 },
      },
    );

    const sessions = await sessionsOf(now);

    expect(sessions[1]).toMatchObject({ lastUsedAt: null, userAgent: null, ip: null, current: false });
  });

  it('moves lastUsedAt when the refresh token is used', async () => {
    const user = await registerUser(ctx.app);
    const longAgo = new Date('2026-01-01T00:00:00Z');
    await SessionModel.updateMany({ user: user.user._id }, { $set: { lastUsedAt: longAgo } });

    expect((await refresh(user)).status).toBe(200);

    const [session] = await sessionsOf(user);
    expect(new Date(session.lastUsedAt as string).getTime()).toBeGreaterThan(longAgo.getTime());
  });

  it('needs an access token', async () => {
    expect((await api.get('/auth/sessions')).status).toBe(401);
  });
});

describe('DELETE /auth/sessions/{sessionId}', () => {
  it("ends one session: its access token and refresh token answer 401 at once, the other's still work", async () => {
    const laptop = await signUpFrom(FIREFOX);
    const phone = await loginFrom(laptop, PHONE);
    await api.as(phone).get('/users/current').expect(200); // a read the session check may keep (AUTH_CACHE_TTL_MS)
    const phoneSession = (await sessionsOf(laptop)).find((session) => !session.current)!;

    const response = await api.as(laptop).delete(`/auth/sessions/${phoneSession._id}`);

    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await api.as(phone).get('/users/current')).status).toBe(401);
    expect((await refresh(phone)).status).toBe(401);
    expect((await api.as(laptop).get('/users/current')).status).toBe(200);
    expect((await refresh(laptop)).status).toBe(200);
    expect(await sessionsOf(laptop)).toHaveLength(1);
  });

  it("answers 404 for another user's session, which goes on working", async () => {
    const alice = await registerUser(ctx.app);
    const bob = await registerUser(ctx.app);
    const [bobSession] = await sessionsOf(bob);

    const response = await api.as(alice).delete(`/auth/sessions/${bobSession._id}`);

    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'NotFound', message: 'Session not found' });
    expect((await api.as(bob).get('/users/current')).status).toBe(200);
  });

  it('answers 404 for a session already ended', async () => {
    const user = await registerUser(ctx.app);
    const other = await loginFrom(user, FIREFOX);
    const [otherSession] = await sessionsOf(other);
    await api.as(user).delete(`/auth/sessions/${otherSession._id}`).expect(204);

    expect((await api.as(user).delete(`/auth/sessions/${otherSession._id}`)).status).toBe(404);
  });

  it('answers 400 ValidationError for an id that is not one', async () => {
    const user = await registerUser(ctx.app);

    const response = await api.as(user).delete('/auth/sessions/not-an-id');

    expect(response.status).toBe(400);
    expect(response.body.errors.sessionId).toMatchObject({ msg: 'Session id must be a valid id', location: 'params' });
  });
});

describe('DELETE /auth/sessions', () => {
  it('ends every session but the current one', async () => {
    const laptop = await signUpFrom(FIREFOX);
    const phone = await loginFrom(laptop, PHONE);
    const tablet = await loginFrom(laptop, 'Tablet');

    const response = await api.as(laptop).delete('/auth/sessions');

    expect(response.status).toBe(204);
    for (const gone of [phone, tablet]) {
      expect((await api.as(gone).get('/users/current')).status).toBe(401);
      expect((await refresh(gone)).status).toBe(401);
    }
    expect((await sessionsOf(laptop)).map((session) => session.userAgent)).toEqual([FIREFOX]);
  });
});

describe('PUT /users/current with current_password', () => {
  const strict = () => agent(ctx.buildApp({ REQUIRE_CURRENT_PASSWORD: 'true' }).app);

  it.each([
    ['the password', { password: 'new-password-1' }],
    ['the email', { email: 'moved@example.com' }],
  ])('with REQUIRE_CURRENT_PASSWORD=true, refuses to change %s without it, and changes nothing', async (_, change) => {
    const user = await registerUser(ctx.app);

    const response = await strict().as(user).put('/users/current').send(change);

    expect(response.status).toBe(400);
    expect(response.body.code).toBe('ValidationError');
    expect(response.body.errors.current_password.msg).toBe(
      'Current password is required to change the password or the email',
    );
    expect((await api.as(user).get('/users/current')).body.user.email).toBe(user.user.email);
    expect((await api.post('/auth/login').send({ email: user.user.email, password: user.password })).status).toBe(200);
  });

  it('with REQUIRE_CURRENT_PASSWORD=true, refuses a wrong one and accepts the right one', async () => {
    const user = await registerUser(ctx.app);
    const email = uniqueEmail('moved');

    const wrong = await strict().as(user).put('/users/current').send({ email, current_password: 'not-my-password' });
    const right = await strict().as(user).put('/users/current').send({ email, current_password: user.password });

    expect(wrong.status).toBe(400);
    expect(wrong.body.errors.current_password).toMatchObject({ msg: 'Current password is incorrect', value: '' });
    expect(right.status).toBe(200);
    expect(right.body.user.email).toBe(email);
  });

  it('with REQUIRE_CURRENT_PASSWORD=true, still changes the rest of the profile without it', async () => {
    const user = await registerUser(ctx.app);

    const response = await strict().as(user).put('/users/current').send({ first_name: 'Ada', email: user.user.email });

    expect(response.status).toBe(200);
    expect(response.body.user.firstName).toBe('Ada');
  });

  it.each([
    ['changes the password without it, as the interface says', {}, 200],
    ['refuses a wrong one sent anyway', { current_password: 'nope' }, 400],
  ])('by default, %s', async (_, extra, status) => {
    const user = await registerUser(ctx.app);

    const response = await api
      .as(user)
      .put('/users/current')
      .send({ password: 'new-password-2', ...extra });

    expect(response.status).toBe(status);
    if (status === 400) expect(response.body.errors.current_password.msg).toBe('Current password is incorrect');
  });
});
