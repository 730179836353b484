/**
 * SIGTERM to a real server process: it stops accepting connections, lets the requests in flight
 * finish, closes keep-alive connections as they fall idle, cuts what still runs when the grace
 * period ends, closes MongoDB, and exits 0.
 */
import http from 'node:http';
import { connect } from 'node:net';
import mongoose from 'mongoose';
import { useTestApp } from './helpers/test-app';
import { databaseUri, sharedSecrets, startServerProcess, type ServerProcess } from './helpers/server-process';

// Each test starts a server of its own and spends most of its time waiting for that server's timers and
// hashes, so the tests run side by side (it.concurrent; they start once the beforeAll below has run).
const servers: ServerProcess[] = [];
// Declared before useTestApp, so that the servers stop before the database is dropped (afterAll hooks run in order).
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});
useTestApp();

async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({
    MONGODB_URI: databaseUri(mongoose.connection.name),
    ...sharedSecrets(),
    ...env,
  });
  servers.push(server);
  return server;
}

interface SentRequest {
  /** Resolves once the whole request has been handed to the operating system. */
  sent: Promise<void>;
  response: Promise<{ status: number; body: string; receivedAt: number }>;
}

function send(server: ServerProcess, method: string, path: string, body?: unknown, agent?: http.Agent): SentRequest {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  let markSent: () => void;
  const sent = new Promise<void>((resolve) => {
    markSent = resolve;
  });
  const response = new Promise<{ status: number; body: string; receivedAt: number }>((resolve, reject) => {
    const req = http.request(
      `${server.baseUrl}${path}`,
      { method, agent: agent ?? false, headers: payload ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, receivedAt: Date.now() }));
        res.on('error', reject);
      },
    );
    req.on('finish', () => markSent());
    req.on('error', reject);
    req.end(payload);
  });
  return { sent, response };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Requests the server is serving now, by its own /metrics gauge, less the request that asks. */
async function requestsInFlight(server: ServerProcess): Promise<number> {
  const { body: text } = await send(server, 'GET', '/metrics').response; // a connection of its own, closed after
  const match = /^http_requests_in_flight (\d+)$/m.exec(text);
  if (!match) throw new Error(`no http_requests_in_flight in /metrics:\n${text.slice(0, 500)}`);
  return Number(match[1]) - 1;
}

/** Polls until the server has read `count` requests and is working on them (instead of a fixed pause). */
async function untilInFlight(server: ServerProcess, count: number, limitMs = 20_000): Promise<void> {
  const until = Date.now() + limitMs;
  for (;;) {
    const now = await requestsInFlight(server);
    if (now >= count) return;
    if (Date.now() > until) throw new Error(`${now} of ${count} requests in flight after ${limitMs} ms`);
    await pause(25);
  }
}

/** Whether a new TCP connection to the port is refused. */
function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe('graceful shutdown on SIGTERM', () => {
  it.concurrent('answers every request in flight completely, refuses new connections, and exits 0', async () => {
    // bcrypt at cost 12 takes about 250 ms per registration, and the app hashes one at a time on two
    // cores, so eight registrations are still being worked on when the signal arrives.
    const server = await startServer({ BCRYPT_COST: '12', SHUTDOWN_TIMEOUTS: 'readiness=0,grace=60s' });
    const requests = Array.from({ length: 8 }, (_, i) =>
      send(server, 'POST', '/api/v1/auth/register', { email: `inflight${i}@example.com`, password: 'password123' }),
    );
    await Promise.all(requests.map((request) => request.sent));
    await untilInFlight(server, requests.length); // the server has read them all

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    await server.waitForLine(/SIGTERM received/);
    const refusedDuringShutdown = await connectionRefused(server.port);
    const responses = await Promise.all(requests.map((request) => request.response));
    const exitCode = await server.exited;

    expect(responses.map((response) => response.status)).toEqual(Array(8).fill(201));
    for (const response of responses)
      expect(JSON.parse(response.body)).toEqual(expect.objectContaining({ accessToken: expect.any(String) }));
    // The test proves something only if some requests were really still running at the signal.
    expect(responses.some((response) => response.receivedAt > signalledAt)).toBe(true);
    expect(refusedDuringShutdown).toBe(true);
    expect(exitCode).toBe(0);
    expect(server.output.join('\n')).toContain('shutdown complete');
    expect(server.output.join('\n')).not.toContain('still in flight');
  });

  it.concurrent(
    'closes a keep-alive connection once its last response ends, so a client that keeps sending on it cannot hold the process open',
    async () => {
      // A grace period far beyond the test's timeout: only closing the connection once idle lets this process end in time.
      const server = await startServer({ BCRYPT_COST: '12', SHUTDOWN_TIMEOUTS: 'readiness=0,grace=10m' });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      // Busy at the signal (so server.close() cannot close it yet), idle a few hundred ms later.
      const registration = send(
        server,
        'POST',
        '/api/v1/auth/register',
        { email: 'keepalive@example.com', password: 'password123' },
        agent,
      );
      await registration.sent;
      await untilInFlight(server, 1);

      server.child.kill('SIGTERM');
      expect((await registration.response).status).toBe(201);
      let failedOnClosedConnection = false;
      for (let attempt = 0; attempt < 200 && !failedOnClosedConnection; attempt++) {
        await send(server, 'GET', '/healthz', undefined, agent).response.catch(() => {
          failedOnClosedConnection = true;
        });
        await pause(50);
      }
      agent.destroy();

      expect(failedOnClosedConnection).toBe(true);
      expect(await server.exited).toBe(0);
    },
  );

  it.concurrent('cuts a request still running when the grace period ends, then exits 0', async () => {
    const server = await startServer({ SHUTDOWN_TIMEOUTS: 'readiness=0,grace=1s' });
    // A client that sends half of its body and then nothing: its request never completes by itself.
    const socket = connect(server.port, '127.0.0.1');
    const closedByServer = new Promise<string>((resolve) => {
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('close', () => resolve(received));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) =>
      socket.write(
        'POST /api/v1/auth/register HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
        () => resolve(),
      ),
    );
    await untilInFlight(server, 1);

    server.child.kill('SIGTERM');
    const received = await closedByServer;

    expect(received).toBe('');
    expect(await server.exited).toBe(0);
    expect(server.output.join('\n')).toMatch(/still in flight after 1000 ms/);
  });
});

describe('SIGINT', () => {
  it.concurrent('shuts down the same way (Ctrl-C in a terminal)', async () => {
    const server = await startServer({});
    server.child.kill('SIGINT');

    expect(await server.exited).toBe(0);
    expect(server.output.join('\n')).toMatch(/SIGINT received[\s\S]*shutdown complete/);
  });
});

describe('readiness delay before the drain (SHUTDOWN_TIMEOUTS readiness)', () => {
  it.concurrent('answers /readyz 503 while still accepting and serving requests, then drains and exits 0', async () => {
    // long enough for a /readyz and a registration on a loaded machine, many times over
    const server = await startServer({ SHUTDOWN_TIMEOUTS: 'readiness=2s' });
    expect((await send(server, 'GET', '/readyz').response).status).toBe(200);

    server.child.kill('SIGTERM');
    await server.waitForLine(/SIGTERM: \/readyz answers 503/);
    const readiness = await send(server, 'GET', '/readyz').response;
    // a new connection, not one already open: a load balancer that has not yet noticed is still served
    const registration = await send(server, 'POST', '/api/v1/auth/register', {
      email: 'late-arrival@example.com',
      password: 'password123',
    }).response;
    const drainStartedBefore = server.output.some((line) => /SIGTERM received/.test(line));

    expect(readiness.status).toBe(503);
    expect(JSON.parse(readiness.body)).toEqual({ status: 'unavailable', reason: 'shutting down', checks: {} });
    expect(registration.status).toBe(201);
    expect(drainStartedBefore).toBe(false);
    expect(await server.exited).toBe(0);
    expect(server.output.join('\n')).toMatch(
      /SIGTERM: \/readyz answers 503[\s\S]*SIGTERM received[\s\S]*shutdown complete/,
    );
  });
});

describe('HTTP server timeouts', () => {
  it.concurrent(
    'answers a request whose headers never finish with 408 after the HTTP_TIMEOUTS headers deadline instead of holding it for minutes',
    async () => {
      const server = await startServer({ HTTP_TIMEOUTS: 'headers=1s,request=3s' });
      const socket = connect(server.port, '127.0.0.1');
      const answer = new Promise<string>((resolve) => {
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('close', () => resolve(received));
        socket.on('error', () => resolve(received));
      });
      socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n'); // and never the blank line

      // the test's own 30 s timeout fails it if Node's 300 s default applied
      const text = await answer;
      expect(text).toMatch(/^HTTP\/1\.1 408/);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
        code: 'BadRequest',
        message: 'The request did not arrive in time',
      });
    },
  );

  it.concurrent(
    "answers what Node refuses before the app (oversized headers, a request that is not HTTP) in the API's error shape",
    async () => {
      const server = await startServer({});
      /** Sends raw bytes on a connection of its own; the whole answer once the server closes it. */
      const raw = (bytes: string) =>
        new Promise<{ status: number; type: string; body: unknown }>((resolve, reject) => {
          const socket = connect(server.port, '127.0.0.1');
          let received = '';
          socket.on('data', (chunk) => (received += chunk.toString()));
          socket.on('error', reject);
          socket.on('close', () => {
            const [head, body] = received.split('\r\n\r\n');
            resolve({
              status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head!)?.[1]),
              type: /content-type: ([^\r]+)/i.exec(head!)?.[1] ?? '',
              body: body ? JSON.parse(body) : body,
            });
          });
          socket.write(bytes);
        });

      const tooLarge = await raw(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      const notHttp = await raw('HELLO THERE\r\n\r\n');

      expect(tooLarge).toEqual({
        status: 431,
        type: 'application/json; charset=utf-8',
        body: { code: 'BadRequest', message: 'Request headers are too large (at most 16 KB in all)' },
      });
      expect(notHttp).toMatchObject({ status: 400, body: { code: 'BadRequest' } });
    },
  );
});
