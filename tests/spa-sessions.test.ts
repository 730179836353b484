/**
 * What a browser SPA needs of sessions and start-up settings: the refresh cookie's SameSite as the
 * operator sets it, CORS_ORIGINS checked and normalised at boot, "expired" told apart from "invalid",
 * development secrets kept across restarts, and a reference page that works over plain HTTP.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { ConfigError, loadConfig } from '../src/config';
import { useTestApp } from './helpers/test-app';
import { agent } from './helpers/agent';
import { refreshCookieOf, registerUser, uniqueEmail } from './helpers/users';

const ctx = useTestApp();
const api = ctx.api;

const SECRETS = { JWT_ACCESS_SECRET: 'a'.repeat(32), JWT_REFRESH_SECRET: 'b'.repeat(32) };
const production = {
  NODE_ENV: 'production',
  MONGODB_URI: 'mongodb://db/blog',
  PUBLIC_URL: 'https://api.example.com',
  CLOUDINARY_URL: 'cloudinary://key:secret@demo',
  ...SECRETS,
};

const setCookieOf = (response: request.Response) =>
  ([] as string[]).concat(response.headers['set-cookie'] ?? [])[0] ?? '';

describe('the refresh cookie across sites (COOKIE_SAMESITE, COOKIE_SECURE)', () => {
  it('stays SameSite=Strict, and Secure only in production, when nothing is set', () => {
    expect(loadConfig({ NODE_ENV: 'development', ...SECRETS }).config.refreshCookie).toEqual({
      sameSite: 'strict',
      secure: false,
    });
    expect(loadConfig(production).config.refreshCookie).toEqual({ sameSite: 'strict', secure: true });
  });

  it('is set SameSite=None; Secure for a SPA on another site when the operator asks for it', async () => {
    const { app } = ctx.buildApp({ COOKIE_SAMESITE: 'none', COOKIE_SECURE: 'true' });
    const response = await agent(app).post('/auth/register').send({ email: uniqueEmail(), password: 'password123' });

    expect(response.status).toBe(201);
    expect(setCookieOf(response)).toMatch(/; Secure/);
    expect(setCookieOf(response)).toMatch(/; SameSite=None/);
    expect(setCookieOf(response)).toMatch(/; HttpOnly/);
  });

  it('is set SameSite=Lax with COOKIE_SAMESITE=lax, and cleared with the same attributes at logout', async () => {
    const { app } = ctx.buildApp({ COOKIE_SAMESITE: 'Lax' });
    const user = await registerUser(app);
    const response = await agent(app).as(user).post('/auth/logout').set('Cookie', user.refreshCookie);

    expect(response.status).toBe(200);
    expect(setCookieOf(response)).toMatch(/^refreshToken=;.*SameSite=Lax/);
    expect(setCookieOf(response)).not.toMatch(/Secure/);
  });

  it('refuses SameSite=None without Secure at start-up, in one line naming the variable', () => {
    expect(() => loadConfig({ NODE_ENV: 'development', ...SECRETS, COOKIE_SAMESITE: 'none' })).toThrow(
      /^COOKIE_SAMESITE: "none" needs a Secure cookie/,
    );
    expect(() => loadConfig({ ...production, COOKIE_SAMESITE: 'none', COOKIE_SECURE: 'false' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...production, COOKIE_SAMESITE: 'none' })).not.toThrow();
    expect(() => loadConfig({ ...production, COOKIE_SAMESITE: 'loose' })).toThrow(/^COOKIE_SAMESITE: /);
  });
});

describe('CORS_ORIGINS', () => {
  const corsOf = (value: string) => loadConfig({ NODE_ENV: 'development', ...SECRETS, CORS_ORIGINS: value });

  it('drops a trailing slash (as copied from the address bar) with a warning, and then lets that origin in with credentials', async () => {
    const { config, warnings } = corsOf('http://localhost:5173/, https://App.Example.com');
    expect(config.corsOrigins).toEqual(['http://localhost:5173', 'https://app.example.com']);
    expect(warnings).toContain(
      'CORS_ORIGINS: "http://localhost:5173/" read as "http://localhost:5173", the form browsers send in their Origin header',
    );

    const { app } = ctx.buildApp({ CORS_ORIGINS: 'http://localhost:5173/' });
    const response = await agent(app)
      .options('/auth/refresh-token')
      .set('Origin', 'http://localhost:5173')
      .set('Access-Control-Request-Method', 'POST');
    expect(response.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(response.headers['access-control-allow-credentials']).toBe('true');
  });

  it('refuses "*" and explains that credentials cannot go with a wildcard', () => {
    expect(() => corsOf('*')).toThrow(/^CORS_ORIGINS: "\*" is not allowed: browsers refuse credentialed requests/);
  });

  it.each([
    'localhost:5173',
    'http://localhost:5173/app',
    'ftp://files.example.com',
    'http://localhost:5173?x=1',
    'https://user@example.com',
    'http://',
  ])('stops start-up on %s, which is not an origin, naming the variable', (value) => {
    expect(() => corsOf(value)).toThrow(
      new RegExp(`^CORS_ORIGINS: ".*" is not an origin: write scheme://host\\[:port\\]`),
    );
  });
});

describe('a rejected access token', () => {
  /** The user's own token, re-signed with the same claims and secret but a lifetime already over. */
  function expiredTokenOf(accessToken: string): string {
    const claims = jwt.decode(accessToken) as { sub: string; sid: string };
    return jwt.sign({ sid: claims.sid, exp: Math.floor(Date.now() / 1000) - 10 }, ctx.config.jwt.accessSecret, {
      algorithm: 'HS256',
      subject: claims.sub,
    });
  }

  it('answers 401 "Access token expired" when the token is ours but out of time, so the SPA knows to refresh', async () => {
    const user = await registerUser(ctx.app);
    const response = await api.get('/users/current').set('Authorization', `Bearer ${expiredTokenOf(user.accessToken)}`);

    expect(response.status).toBe(401);
    expect(response.body).toEqual({ code: 'AuthenticationError', message: 'Access token expired' });
  });

  it('answers 401 "Access token is invalid", without "expired", for a forged, foreign or logged-out token', async () => {
    const user = await registerUser(ctx.app);
    const claims = jwt.decode(user.accessToken) as { sub: string; sid: string };
    const forged = jwt.sign({ sid: claims.sid }, 'x'.repeat(32), {
      algorithm: 'HS256',
      subject: claims.sub,
      expiresIn: 60,
    });
    const forgedAndExpired = jwt.sign({ sid: claims.sid, exp: Math.floor(Date.now() / 1000) - 10 }, 'x'.repeat(32), {
      algorithm: 'HS256',
      subject: claims.sub,
    });
    await api.as(user).post('/auth/logout').set('Cookie', user.refreshCookie).expect(200);

    for (const token of [forged, forgedAndExpired, user.accessToken, 'a.b.c']) {
      const response = await api.as(token).get('/users/current');
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ code: 'AuthenticationError', message: 'Access token is invalid' });
    }
  });

  it('can be refreshed after "expired" through the cookie, as the spec\'s flow says', async () => {
    const user = await registerUser(ctx.app);
    const refreshed = await api.post('/auth/refresh-token').set('Cookie', user.refreshCookie);
    expect(refreshed.status).toBe(200);
    const retried = await api.as(refreshed.body.accessToken).get('/users/current');
    expect(retried.status).toBe(200);
    expect(
      refreshCookieOf(await api.post('/auth/login').send({ email: user.user.email, password: user.password })),
    ).toMatch(/^refreshToken=/);
  });
});

describe('development JWT secrets kept in a file', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(path.join(tmpdir(), 'blog-api-secrets-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('are generated once, readable only by their owner, and read back on the next start, so tokens stay valid', async () => {
    const file = path.join(directory, '.data', 'dev-secrets.json');
    const first = loadConfig({ NODE_ENV: 'development' }, { developmentSecretsFile: file });
    const second = loadConfig({ NODE_ENV: 'development' }, { developmentSecretsFile: file });

    expect(second.config.jwt).toEqual(first.config.jwt);
    expect(first.config.jwt.accessSecret).not.toBe(first.config.jwt.refreshSecret);
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(first.warnings.join('\n')).toContain(file);
    expect(first.warnings.join('\n')).not.toContain(first.config.jwt.accessSecret);
  });

  it('are never used in production or in tests', () => {
    const file = path.join(directory, 'dev-secrets.json');
    expect(() => loadConfig({ ...production, JWT_ACCESS_SECRET: '' }, { developmentSecretsFile: file })).toThrow(
      'JWT_ACCESS_SECRET is required when NODE_ENV=production',
    );
    loadConfig({ NODE_ENV: 'test' }, { developmentSecretsFile: file });
    expect(() => statSync(file)).toThrow();
  });

  it('give way to secrets set in the environment', () => {
    const file = path.join(directory, 'dev-secrets.json');
    expect(
      loadConfig({ NODE_ENV: 'development', ...SECRETS }, { developmentSecretsFile: file }).config.jwt.accessSecret,
    ).toBe(SECRETS.JWT_ACCESS_SECRET);
  });

  it('stop start-up with one line when the file is damaged', () => {
    const file = path.join(directory, 'dev-secrets.json');
    writeFileSync(file, '{"accessSecret": "short"}');
    expect(() => loadConfig({ NODE_ENV: 'development' }, { developmentSecretsFile: file })).toThrow(
      /^JWT secrets: .* is not a valid development secrets file; delete it/,
    );
    expect(readFileSync(file, 'utf8')).toBe('{"accessSecret": "short"}');
  });
});

describe('the reference page over plain HTTP', () => {
  it('is served without upgrade-insecure-requests, so http://vm:3000/api/v1/docs loads its assets over http', async () => {
    const response = await api.get('/docs').set('Host', 'vm:3000');

    expect(response.status).toBe(200);
    expect(response.headers['content-security-policy']).toContain("default-src 'self'");
    expect(response.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    // ignored by browsers on plain HTTP, with a console error on every page
    expect(response.headers).not.toHaveProperty('cross-origin-opener-policy');
  });

  it('keeps Cross-Origin-Opener-Policy over HTTPS (seen through a trusted proxy)', async () => {
    const { app } = ctx.buildApp({ TRUST_PROXY: '1' });
    const response = await agent(app).get('/docs').set('X-Forwarded-Proto', 'https');

    expect(response.headers['cross-origin-opener-policy']).toBe('same-origin');
  });
});
