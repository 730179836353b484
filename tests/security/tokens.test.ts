import jwt from 'jsonwebtoken';
import { SessionModel } from '../../src/models/session.model';
import { PRODUCTION_ENV, useTestApp } from '../helpers/test-app';
import { agent } from '../helpers/agent';
import { registerAdmin, registerUser } from '../helpers/users';

const ctx = useTestApp({ env: { CORS_ORIGINS: 'https://spa.example.com' } });
const api = ctx.api;

const decode = (token: string) => jwt.decode(token) as { sub: string; sid: string; exp: number; iat: number };
const currentUserWith = (token: string) => api.get('/users/current').set('Authorization', `Bearer ${token}`);

describe('access tokens', () => {
  it('are HS256 JWTs naming the user and the session, expiring after ACCESS_TOKEN_TTL', async () => {
    const { accessToken, user } = await registerUser(ctx.app);
    const header = JSON.parse(Buffer.from(accessToken.split('.')[0], 'base64url').toString());
    const claims = decode(accessToken);

    expect(header.alg).toBe('HS256');
    expect(claims.sub).toBe(user._id);
    expect(claims.sid).toMatch(/^[0-9a-f]{24}$/);
    expect(claims.exp - claims.iat).toBe(15 * 60);
  });

  it('refuses a token with alg "none"', async () => {
    const { accessToken } = await registerUser(ctx.app);
    const claims = decode(accessToken);
    const unsigned = jwt.sign({ sid: claims.sid }, '', { algorithm: 'none', subject: claims.sub });
    expect((await currentUserWith(unsigned)).status).toBe(401);
  });

  it('refuses a token signed with the refresh secret', async () => {
    const { accessToken } = await registerUser(ctx.app);
    const claims = decode(accessToken);
    const forged = jwt.sign({ sid: claims.sid }, ctx.config.jwt.refreshSecret, {
      algorithm: 'HS256',
      subject: claims.sub,
    });
    expect((await currentUserWith(forged)).status).toBe(401);
  });

  it('refuses the refresh token used as an access token', async () => {
    const { refreshCookie } = await registerUser(ctx.app);
    expect((await currentUserWith(refreshCookie.replace('refreshToken=', ''))).status).toBe(401);
  });

  it('refuses a token signed with the right secret but another algorithm (HS512)', async () => {
    const { accessToken } = await registerUser(ctx.app);
    const claims = decode(accessToken);
    const other = jwt.sign({ sid: claims.sid }, ctx.config.jwt.accessSecret, {
      algorithm: 'HS512',
      subject: claims.sub,
    });
    expect((await currentUserWith(other)).status).toBe(401);
  });

  it('refuses an expired token', async () => {
    const { accessToken } = await registerUser(ctx.app);
    const claims = decode(accessToken);
    const expired = jwt.sign(
      { sid: claims.sid, exp: Math.floor(Date.now() / 1000) - 10 },
      ctx.config.jwt.accessSecret,
      {
        algorithm: 'HS256',
        subject: claims.sub,
      },
    );
    const response = await currentUserWith(expired);
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('AuthenticationError');
  });

  it('refuses a well-signed token whose claims are not ids', async () => {
    const forged = jwt.sign({ sid: { $ne: null } }, ctx.config.jwt.accessSecret, { algorithm: 'HS256', subject: 'x' });
    expect((await currentUserWith(forged)).status).toBe(401);
  });

  it('refuses the token of a deleted user', async () => {
    const signedIn = await registerUser(ctx.app);
    const admin = await registerAdmin(ctx.app, 'chief@example.com');
    await api.as(admin).delete(`/users/${signedIn.user._id}`).expect(204);
    expect((await currentUserWith(signedIn.accessToken)).status).toBe(401);
  });
});

describe('refresh tokens', () => {
  it('refuses an expired refresh token even while its session record still exists', async () => {
    const { refreshCookie } = await registerUser(ctx.app);
    const claims = decode(refreshCookie.replace('refreshToken=', ''));
    const expired = jwt.sign(
      { sid: claims.sid, exp: Math.floor(Date.now() / 1000) - 1 },
      ctx.config.jwt.refreshSecret,
      {
        algorithm: 'HS256',
        subject: claims.sub,
      },
    );
    const response = await api.post('/auth/refresh-token').set('Cookie', `refreshToken=${expired}`);
    expect(response.status).toBe(401);
  });

  it('refuses a different token for a live session: only the token whose hash was stored works', async () => {
    const { refreshCookie } = await registerUser(ctx.app);
    const claims = decode(refreshCookie.replace('refreshToken=', ''));
    const sibling = jwt.sign({ sid: claims.sid, jti: 'other' }, ctx.config.jwt.refreshSecret, {
      algorithm: 'HS256',
      subject: claims.sub,
    });
    const response = await api.post('/auth/refresh-token').set('Cookie', `refreshToken=${sibling}`);
    expect(response.status).toBe(401);
  });

  it('refuses a refresh token whose session lifetime has passed, though the JWT still verifies', async () => {
    const { refreshCookie } = await registerUser(ctx.app);
    const { sid } = decode(refreshCookie.replace('refreshToken=', ''));
    // The TTL index may not have purged it yet (MongoDB runs it once a minute): the code must check.
    await SessionModel.updateOne({ _id: sid }, { expiresAt: new Date(Date.now() - 1000) });

    const response = await api.post('/auth/refresh-token').set('Cookie', refreshCookie);
    expect(response.status).toBe(401);
  });
});

describe('HTTP hardening', () => {
  it('sends helmet headers and no X-Powered-By', async () => {
    const response = await api.get('/');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  it('allows a configured origin with credentials', async () => {
    const response = await api.get('/').set('Origin', 'https://spa.example.com');
    expect(response.headers['access-control-allow-origin']).toBe('https://spa.example.com');
    expect(response.headers['access-control-allow-credentials']).toBe('true');
    // the SPA may read its rate-limit budget (every RateLimit header sent) and the request id
    expect(response.headers['access-control-expose-headers']).toBe(
      'RateLimit-Policy,RateLimit-Limit,RateLimit-Remaining,RateLimit-Reset,Retry-After,X-Request-Id',
    );
    const sent = Object.keys(response.headers).filter((name) => name.startsWith('ratelimit-'));
    const exposed = response.headers['access-control-expose-headers'].toLowerCase().split(',');
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((name) => !exposed.includes(name))).toEqual([]);
  });

  it('answers a preflight from a configured origin', async () => {
    const response = await api
      .options('/users/current')
      .set('Origin', 'https://spa.example.com')
      .set('Access-Control-Request-Method', 'PUT')
      .set('Access-Control-Request-Headers', 'authorization,content-type');
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-methods']).toContain('PUT');
    // kept by the browser for 10 minutes, not asked again before each call
    expect(response.headers['access-control-max-age']).toBe('600');
  });

  it('gives no CORS grant to another origin', async () => {
    const response = await api.get('/').set('Origin', 'https://evil.example.com');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('in production', () => {
  it('marks the refresh cookie Secure', async () => {
    const production = ctx.buildApp({ ...PRODUCTION_ENV, PUBLIC_URL: 'https://blog.example.com', LOG_LEVEL: 'silent' });
    const response = await agent(production.app)
      .post('/auth/register')
      .send({ email: 'prod.user@example.com', password: 'password123' });
    expect(response.status).toBe(201);
    expect(([] as string[]).concat(response.headers['set-cookie'])[0]).toMatch(/; Secure/);
  });
});
