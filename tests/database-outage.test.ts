/**
 * The database cut away under a real server process (a TCP proxy of tools/faults between them): the API
 * answers fast 503 ServiceUnavailable with Retry-After instead of hanging or answering 500, /readyz says
 * 503, and both recover without a restart once the database is back. A silent partition: every request
 * is answered within 5 s with production deadlines, the first ones on dead pooled connections too. A
 * counter left off by a cut between a like or comment and its `$inc` is repaired by that instance soon
 * after the database returns. The longer scenarios (under load, repeated cuts, SIGKILL) are in
 * tools/faults/run.ts.
 */
import mongoose from 'mongoose';
import { isDatabaseUnavailableError } from '../src/lib/database';
import { BlogModel } from '../src/models/blog.model';
import { CommentModel } from '../src/models/comment.model';
import { LikeModel } from '../src/models/like.model';
import { hasReadDeadline } from '../src/models/read-deadline';
import { StorageError } from '../src/services/storage';
import { startTcpProxy, type TcpProxy } from '../tools/faults/tcp-proxy';
import { createBlog } from './helpers/blogs';
import { databaseUri, sharedSecrets, startServerProcess, type ServerProcess } from './helpers/server-process';
import { useTestApp } from './helpers/test-app';

jest.setTimeout(60_000);

interface BehindProxy {
  proxy: TcpProxy;
  server: ServerProcess;
  /** A reader signed up through this server. */
  token: string;
}

const started: BehindProxy[] = [];

/** A server process whose database link goes through a proxy of its own; `search`: the URI's options. */
async function startBehindProxy(search: string): Promise<BehindProxy> {
  const target = new URL(databaseUri(mongoose.connection.name));
  const proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port) });
  target.host = `127.0.0.1:${proxy.port}`;
  target.search = search;
  const server = await startServerProcess({
    MONGODB_URI: target.toString(),
    SITE_URL: 'https://blog.example',
    ...sharedSecrets(),
  });
  const registered = await fetch(`${server.baseUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `reader-${started.length}@example.com`, password: 'password123' }),
  });
  const { accessToken } = (await registered.json()) as { accessToken: string };
  started.push({ proxy, server, token: accessToken });
  return started.at(-1)!;
}

// Declared before useTestApp, so that the servers stop before the database is dropped (afterAll hooks run in order).
afterAll(async () => {
  for (const { server, proxy } of started) {
    await server.stop();
    await proxy.close();
  }
});
const ctx = useTestApp();
const admin = ctx.signedInAdmin();
let proxy: TcpProxy;
let server: ServerProcess;
let token: string;
beforeAll(async () => {
  // Deadlines shorter than production's, for a shorter test, yet well above what a request takes on a
  // loaded machine.
  ({ proxy, server, token } = await startBehindProxy(
    '?socketTimeoutMS=1500&timeoutMS=2000&serverSelectionTimeoutMS=1500',
  ));
}, 60_000);
afterEach(() => proxy.setMode('pass'));

async function send(
  method: string,
  path: string,
  { on = server, as = token, json }: { on?: ServerProcess; as?: string; json?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null; ms: number }> {
  const start = Date.now();
  const response = await fetch(`${on.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${as}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
    signal: AbortSignal.timeout(20_000),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    retryAfter: response.headers.get('retry-after'),
    ms: Date.now() - start,
  };
}

const get = (path: string) => send('GET', path);

/** Polls until `probe` answers true (every 50 ms, for up to `limitMs`). */
async function eventually(probe: () => Promise<boolean>, limitMs = 30_000): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (await probe().catch(() => false)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe('a database cut', () => {
  it('answers 503 ServiceUnavailable with Retry-After, /readyz 503, /healthz 200, and recovers without a restart', async () => {
    expect((await get('/api/v1/blogs')).status).toBe(200);

    proxy.setMode('cut');
    const during = await get('/api/v1/blogs');
    const feed = await get('/feed.xml');
    const readiness = await get('/readyz');
    const liveness = await get('/healthz');

    expect(during.status).toBe(503);
    expect(during.body).toEqual({ code: 'ServiceUnavailable', message: expect.any(String) });
    expect(JSON.stringify(during.body)).not.toMatch(/Mongo|ECONN|127\.0\.0\.1/);
    expect(during.retryAfter).toBe('5');
    expect({ status: feed.status, body: feed.body }).toEqual({ status: 503, body: during.body });
    expect(readiness.status).toBe(503);
    expect(readiness.body).toEqual({ status: 'unavailable', checks: { mongodb: 'down' } });
    expect(liveness.status).toBe(200);

    proxy.setMode('pass');
    expect(await eventually(async () => (await get('/api/v1/blogs')).status === 200)).toBe(true);
    expect(await eventually(async () => (await get('/readyz')).status === 200)).toBe(true);
    expect(server.child.exitCode).toBeNull();
  });

  it('answers a write 503 too, and logs it as a dependency failure, not an unexpected error', async () => {
    proxy.setMode('cut');
    const response = await fetch(`${server.baseUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'during-cut@example.com', password: 'password123' }),
      signal: AbortSignal.timeout(20_000),
    });

    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(server.output.join('\n')).not.toMatch(/unexpected error/);
  });
});

describe('a silent partition (no byte gets through, nothing is reset)', () => {
  it('answers every request within 5 s with production deadlines, reads and writes sent on dead pooled connections too', async () => {
    const production = await startBehindProxy('');
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const requests = [
      () => send('GET', '/api/v1/blogs', { on: production.server, as: production.token }),
      () => send('GET', `/api/v1/blogs/${blog.slug}`, { on: production.server, as: production.token }),
      () => send('POST', `/api/v1/likes/blog/${blog._id}`, { on: production.server, as: production.token }),
      () =>
        send('POST', `/api/v1/comments/blog/${blog._id}`, {
          on: production.server,
          as: production.token,
          json: { content: 'in the partition' },
        }),
    ];
    // each kind once beforehand: the pool holds open connections, which the partition then kills silently
    for (const request of requests) expect((await request()).status).toBeLessThan(300);

    production.proxy.setMode('blackhole');
    const during = await Promise.all(requests.map((request) => request()));
    production.proxy.setMode('pass');

    expect(during.map((answer) => answer.status)).toEqual([503, 503, 503, 503]);
    expect(Math.max(...during.map((answer) => answer.ms))).toBeLessThanOrEqual(5_000);
  });

  it('answers within the deadline with 503 instead of hanging, and recovers', async () => {
    expect((await get('/api/v1/blogs')).status).toBe(200);
    proxy.setMode('blackhole');

    // the operation deadline (2 s here) ends it at the latest; the fetch's own 20 s limit would fail the test
    const during = await get('/api/v1/blogs');
    expect(during.status).toBe(503);
    expect(during.body.code).toBe('ServiceUnavailable');

    proxy.setMode('pass');
    expect(await eventually(async () => (await get('/api/v1/blogs')).status === 200)).toBe(true);
  });
});

describe('counters after a cut between a record and its counter', () => {
  const counters = async (blogId: string) => {
    const blog = await BlogModel.findById(blogId).lean();
    return { likesCount: blog!.likesCount, commentsCount: blog!.commentsCount };
  };

  it('are recounted by the instance that saw the failure once the database is back, without a restart', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    // the like and the comment reach the database; their answers do not, so their counters are not raised
    proxy.cutOn(['insert', 'likes']);
    expect((await send('POST', `/api/v1/likes/blog/${blog._id}`)).status).toBe(503);
    proxy.setMode('pass');
    proxy.cutOn(['insert', 'comments']);
    const comment = await send('POST', `/api/v1/comments/blog/${blog._id}`, { json: { content: 'cut short' } });
    expect(comment.status).toBe(503);
    proxy.setMode('pass');
    expect(await LikeModel.countDocuments({ blog: blog._id })).toBe(1);
    expect(await CommentModel.countDocuments({ blog: blog._id })).toBe(1);
    expect(await counters(blog._id)).toEqual({ likesCount: 0, commentsCount: 0 });

    // checked every 5 s, again after the operation deadline (2 s here) once fixed
    expect(
      await eventually(async () => JSON.stringify(await counters(blog._id)) === '{"likesCount":1,"commentsCount":1}'),
    ).toBe(true);
    // the fix's log line follows its write, through the process's stdout: it may arrive a moment later
    const logged = new RegExp(`counter repair: blog ${blog._id} likesCount was 0`);
    expect(await eventually(async () => logged.test(server.output.join('\n')), 5_000)).toBe(true);
  });
});

describe('which errors mean "the database is unavailable" (503) rather than a bug (500)', () => {
  const named = (name: string) => Object.assign(new Error('x'), { name });
  const socketError = (code: string, frame: string) =>
    Object.assign(new Error(`write ${code}`), {
      code,
      stack: `Error: write ${code}\n    at afterWriteDispatched (node:internal/stream_base_commons:161:15)\n    at ${frame}`,
    });
  const driverFrame =
    'Connection.writeCommand (/app/node_modules/mongoose/node_modules/mongodb/lib/cmap/connection.js:392:25)';

  it.each([
    ['a server selection timeout', named('MongoServerSelectionError')],
    ['a network timeout', named('MongoNetworkTimeoutError')],
    ['an operation timeout (timeoutMS)', named('MongoOperationTimeoutError')],
    ['a client closed by the watchdog', named('MongoClientClosedError')],
    ['a raw socket error the driver passed on', socketError('ECONNRESET', driverFrame)],
    ['a driver error as the cause of another', new Error('wrapped', { cause: named('MongoNetworkError') })],
  ])('%s: unavailable', (_case, error) => {
    expect(isDatabaseUnavailableError(error)).toBe(true);
  });

  it.each([
    ['a plain bug', new TypeError('x is undefined')],
    ['a duplicate key', Object.assign(named('MongoServerError'), { code: 11000 })],
    [
      'a socket error of another library',
      socketError('ECONNRESET', 'ClientRequest.emit (/app/node_modules/cloudinary/lib/uploader.js:600:3)'),
    ],
    [
      'a storage failure caused by a reset',
      new StorageError('Cloudinary upload failed', { cause: socketError('ECONNRESET', driverFrame) }),
    ],
  ])('%s: not unavailable', (_case, error) => {
    expect(isDatabaseUnavailableError(error)).toBe(false);
  });
});

it('every model holds the reads made for a request to the short read deadline (models/read-deadline.ts)', () => {
  const models = mongoose.modelNames().map((name) => mongoose.model(name));
  expect(models.filter((model) => !hasReadDeadline(model.schema)).map((model) => model.modelName)).toEqual([]);
});
