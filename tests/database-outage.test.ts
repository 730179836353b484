/**
 * The database cut away under a real server process (a TCP proxy of tools/faults between them): the API
 * answers fast 503 ServiceUnavailable with Retry-After instead of hanging or answering 500, /readyz says
 * 503, and both recover without a restart once the database is back. Also a silent partition: requests
 * are answered within their deadline. The longer scenarios (under load, repeated cuts, SIGKILL) are in
 * tools/faults/run.js.
 */
import mongoose from 'mongoose';
import { isDatabaseUnavailableError } from '../src/lib/database';
import { StorageError } from '../src/services/storage';
import { startTcpProxy, type TcpProxy } from '../tools/faults/tcp-proxy';
import { databaseUri, sharedSecrets, startServerProcess, type ServerProcess } from './helpers/server-process';
import { useTestApp } from './helpers/test-app';

let proxy: TcpProxy;
let server: ServerProcess;
let token: string;

// Declared before useTestApp, so that the server stops before the database is dropped (afterAll hooks run in order).
afterAll(async () => {
  await server?.stop();
  await proxy?.close();
});
useTestApp();
beforeAll(async () => {
  const target = new URL(databaseUri(mongoose.connection.name));
  proxy = await startTcpProxy({ targetHost: target.hostname, targetPort: Number(target.port) });
  target.host = `127.0.0.1:${proxy.port}`;
  // Deadlines shorter than production's, for a shorter test, yet well above what a request takes on a
  // loaded machine.
  target.search = '?socketTimeoutMS=1500&timeoutMS=2000&serverSelectionTimeoutMS=1500';
  server = await startServerProcess({
    MONGODB_URI: target.toString(),
    SITE_URL: 'https://blog.example',
    ...sharedSecrets(),
  });
  const registered = await fetch(`${server.baseUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'reader@example.com', password: 'password123' }),
  });
  token = ((await registered.json()) as { accessToken: string }).accessToken;
}, 60_000);
afterEach(() => proxy.setMode('pass'));

async function get(
  path: string,
): Promise<{ status: number; body: Record<string, unknown>; retryAfter: string | null }> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(20_000),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    retryAfter: response.headers.get('retry-after'),
  };
}

/** Polls until `probe` answers true (every 50 ms, for up to `limitMs`). */
async function eventually(probe: () => Promise<boolean>, limitMs = 20_000): Promise<boolean> {
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
