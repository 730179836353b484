/**
 * The checker that every integration test runs through (tests/helpers/contract.ts) must itself be
 * able to fail: each kind of broken response below is reported.
 */
import express from 'express';
import request from 'supertest';
import { agent } from '../helpers/agent';
import { blogContract } from '../../src/openapi/blogs.paths';
import { createLogger } from '../../src/lib/logger';
import { methodNotAllowed } from '../../src/middlewares/method-not-allowed';
import { errorHandler } from '../../src/middlewares/error-handler';
import { ContractChecker, takeContractMismatches, withContractCheck, type ObservedResponse } from '../helpers/contract';

const checker = new ContractChecker();
const rateLimitHeaders = { 'ratelimit-limit': '60', 'ratelimit-remaining': '59', 'ratelimit-reset': '60' };
const user = {
  _id: '6b03359a24f41420bf3bfc3f',
  username: 'ada',
  email: 'ada@example.com',
  role: 'user',
  socialLinks: {},
  createdAt: '2026-11-22T18:34:02.263Z',
  updatedAt: '2026-11-22T18:34:02.263Z',
};

const observed = (overrides: Partial<ObservedResponse> & { json?: unknown }): ObservedResponse => ({
  method: 'GET',
  url: '/api/v1/users/current',
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', ...rateLimitHeaders },
  body: Buffer.from(JSON.stringify(overrides.json ?? { user })),
  ...overrides,
});

describe('the response checker', () => {
  it('accepts a response that keeps the document', () => {
    expect(checker.check(observed({}))).toEqual([]);
  });

  it('reports a body that lost a required field or gained an unknown one', () => {
    const { email: _email, ...withoutEmail } = user;
    expect(checker.check(observed({ json: { user: withoutEmail } })).join()).toMatch(
      /must have required property 'email'/,
    );
    expect(checker.check(observed({ json: { user: { ...user, password: 'hash' } } })).join()).toMatch(
      /additional properties/,
    );
  });

  it('reports an undocumented status', () => {
    expect(checker.check(observed({ status: 403, json: { code: 'AuthorizationError', message: 'no' } }))).toEqual([
      'status 403 is not documented for GET /users/current',
    ]);
  });

  it('reports a wrong content type, a missing rate-limit header and a body on a 204', () => {
    expect(checker.check(observed({ headers: { ...rateLimitHeaders, 'content-type': 'text/plain' } })).join()).toMatch(
      /content-type "text\/plain"/,
    );
    expect(checker.check(observed({ headers: { 'content-type': 'application/json' } })).join()).toMatch(
      /RateLimit-Limit is missing/,
    );
    expect(checker.check(observed({ method: 'DELETE', status: 204 })).join()).toMatch(
      /a body was sent where none is documented/,
    );
  });

  it('takes literal paths before templates, and checks unknown routes against the error shape', () => {
    expect(checker.matchPath('/api/v1/users/current')).toBe('/users/current');
    expect(checker.matchPath('/api/v1/users/6b03359a24f41420bf3bfc3f')).toBe('/users/{userId}');
    expect(checker.check(observed({ url: '/api/v1/nope', status: 200, json: { ok: true } })).length).toBe(2);
    expect(
      checker.check(observed({ url: '/api/v1/nope', status: 404, json: { code: 'NotFound', message: 'x' } })),
    ).toEqual([]);
  });

  it('exempts only the reference page assets and uploaded files', () => {
    const asset = { status: 200, headers: { 'content-type': 'application/javascript' }, body: Buffer.from('x') };
    expect(checker.check(observed({ url: '/api/v1/docs/assets/swagger-ui-bundle.js', ...asset }))).toEqual([]);
    expect(checker.check(observed({ url: '/uploads/banners/a.webp', ...asset }))).toEqual([]);
    expect(checker.check(observed({ url: '/api/v1/docs/other.js', ...asset })).length).toBeGreaterThan(0);
  });
});

describe('withContractCheck', () => {
  it('records the mismatches of a wrapped app, which fail the test that received them', async () => {
    const drifted = express();
    drifted.get('/api/v1/users/current', (_req, res) => {
      res.set(rateLimitHeaders).json({ user: { ...user, role: 'owner' } });
    });
    await request(withContractCheck(drifted)).get('/api/v1/users/current');
    // Taken here so this test passes; contract-setup.ts would otherwise fail it in afterEach.
    expect(takeContractMismatches().join()).toMatch(/GET \/users\/current → 200: body does not match the schema.*role/);
  });
});

describe('with the blog routes plugged in', () => {
  const merged = new ContractChecker({
    ...checker.document,
    paths: { ...checker.document.paths, ...blogContract.paths },
    components: {
      ...checker.document.components,
      schemas: { ...checker.document.components.schemas, ...blogContract.schemas },
    },
  });

  it('lets the method choose between /blogs/{slug} and /blogs/{blogId}', () => {
    expect(merged.matchPath('/api/v1/blogs/hello-world', 'get')).toBe('/blogs/{slug}');
    expect(merged.matchPath('/api/v1/blogs/6b03359a24f41420bf3bfc3f', 'put')).toBe('/blogs/{blogId}');
    expect(merged.matchPath('/api/v1/blogs/6b03359a24f41420bf3bfc3f', 'delete')).toBe('/blogs/{blogId}');
    expect(merged.matchPath('/api/v1/blogs/user/6b03359a24f41420bf3bfc3f', 'get')).toBe('/blogs/user/{userId}');
    expect(
      merged.check(
        observed({
          method: 'DELETE',
          url: '/api/v1/blogs/6b03359a24f41420bf3bfc3f',
          status: 204,
          body: Buffer.alloc(0),
        }),
      ),
    ).toEqual([]);
  });
});

describe('405 on the blog paths', () => {
  it('allows the methods of every template the path matches', async () => {
    const app = express();
    app.use(methodNotAllowed(blogContract.paths));
    app.use(errorHandler(createLogger({ level: 'silent', json: true })));
    const response = await agent(app).patch('/blogs/6b03359a24f41420bf3bfc3f');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, PUT, DELETE');
  });
});

describe('a path documented at the app root (its own server URL)', () => {
  it('is matched outside /api/v1, as /healthz will be', () => {
    const withHealth = new ContractChecker({
      ...checker.document,
      paths: {
        ...checker.document.paths,
        '/healthz': { servers: [{ url: '/' }], get: checker.document.paths['/']!.get! },
      },
    });
    expect(withHealth.matchPath('/healthz', 'get')).toBe('/healthz');
    expect(withHealth.matchPath('/api/v1/healthz', 'get')).toBeUndefined();
  });
});
