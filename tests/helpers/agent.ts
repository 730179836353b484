/**
 * One small API agent for the tests, after Ghost's e2e framework: it knows the API's base path and
 * the bearer header, so a test names only what it is about.
 *   const api = agent(ctx.app);
 *   await api.get('/blogs/');                        // GET /api/v1/blogs/, anonymous
 *   await api.as(reader).post('/likes/blog/' + id);  // with `Authorization: Bearer <reader's token>`
 * Each call returns supertest's request, so `.send()`, `.query()`, `.set()`, `.field()`, `.expect()` chain as usual.
 * Routes outside the API (/healthz, /metrics, /docs) keep using supertest's request(app) directly.
 */
import type { Express } from 'express';
import request from 'supertest';
import type { SignedInUser } from './users';

export const API_BASE = '/api/v1';

type Method = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options';

export interface ApiAgent {
  get(path: string): request.Test;
  head(path: string): request.Test;
  post(path: string): request.Test;
  put(path: string): request.Test;
  patch(path: string): request.Test;
  delete(path: string): request.Test;
  options(path: string): request.Test;
  /** The same agent sending the user's access token (or a raw token) as a bearer header. */
  as(user: SignedInUser | string): ApiAgent;
}

/** `app` may be a function, for files whose app is built in beforeAll: `agent(() => ctx.app)`. */
export function agent(app: Express | (() => Express), token?: string): ApiAgent {
  const send = (method: Method) => (path: string) => {
    // Paths are the API's own ('/blogs/'), as the OpenAPI document writes them; a full path is a slip.
    if (!path.startsWith('/') || path.startsWith(`${API_BASE}/`) || path === API_BASE) {
      throw new Error(`agent paths start after ${API_BASE}: got ${path}`);
    }
    const target = typeof app === 'function' && !('listen' in app) ? (app as () => Express)() : (app as Express);
    const test = request(target)[method](`${API_BASE}${path}`);
    return token === undefined ? test : test.set('Authorization', `Bearer ${token}`);
  };
  return {
    get: send('get'),
    head: send('head'),
    post: send('post'),
    put: send('put'),
    patch: send('patch'),
    delete: send('delete'),
    options: send('options'),
    as: (user) => agent(app, typeof user === 'string' ? user : user.accessToken),
  };
}
