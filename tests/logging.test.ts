import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { BlogModel } from '../src/models/blog.model';
import { UserModel } from '../src/models/user.model';
import { loggablePath } from '../src/middlewares/request-logger';
import { createBlog } from './helpers/blogs';
import { captureLog, settle, type CapturedLog } from './helpers/log-capture';
import { useTestApp } from './helpers/test-app';
import { registerAdmin, registerUser, uniqueEmail } from './helpers/users';

const log: CapturedLog = captureLog('debug');
const ctx = useTestApp({ deps: { logger: log.logger } });
const api = ctx.api;
afterEach(() => {
  jest.restoreAllMocks();
  log.lines.length = 0;
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('generates a UUID request id, returns it in X-Request-Id and logs one line for the request', async () => {
    const response = await api.get('/?page=secret-query-value');
    await settle();

    const requestId = response.headers['x-request-id'];
    expect(requestId).toMatch(UUID);
    const lines = log.entries().filter((entry) => entry.requestId === requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', method: 'GET', path: '/api/v1/', status: 200, requestId });
    expect(typeof lines[0].durationMs).toBe('number');
    expect(log.lines.join('\n')).not.toContain('secret-query-value');
  });

  it('keeps a well-formed X-Request-Id from the caller (a proxy) and logs under it', async () => {
    const response = await api.get('/nope').set('X-Request-Id', 'edge-7f3a.42:abc_Z');
    await settle();

    expect(response.headers['x-request-id']).toBe('edge-7f3a.42:abc_Z');
    expect(log.entries()).toContainEqual(
      expect.objectContaining({ requestId: 'edge-7f3a.42:abc_Z', status: 404, path: '/api/v1/nope' }),
    );
  });

  it.each([
    ['spaces and quotes', 'id with "quotes"'],
    ['an over-long id', 'a'.repeat(129)],
    ['characters outside the set', 'id/<script>'],
  ])('replaces an offered id with %s by a generated one', async (_case, offered) => {
    const response = await api.get('/').set('X-Request-Id', offered);
    await settle();

    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(log.lines.join('\n')).not.toContain(offered);
  });

  /** Sends the start of a request as `requestId` on a socket of its own, leaves, and answers what was logged for it. */
  async function leaveMidRequest(requestId: string, head: string, body: string) {
    const server = ctx.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      await once(socket, 'connect');
      socket.write(`${head}\r\nHost: x\r\nX-Request-Id: ${requestId}\r\n${body}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      const logged = () => log.entries().filter((entry) => entry.requestId === requestId);
      for (let waited = 0; waited < 2000 && logged().length === 0; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      return logged();
    } finally {
      server.close();
    }
  }

  it('logs a request its client left before any answer as aborted, with no status, not the 200 nothing sent', async () => {
    // an admin's upload that never arrives whole: the API waits for the rest, then the client goes
    const admin = await registerAdmin(ctx.app, 'chief@example.com');
    const entries = await leaveMidRequest(
      'left-early',
      'POST /api/v1/blogs/ HTTP/1.1',
      `Authorization: Bearer ${admin.accessToken}\r\nContent-Type: multipart/form-data; boundary=b\r\n` +
        'Content-Length: 100000\r\n\r\n--b\r\nContent-Disposition: form-data; name="banner_image"; filename="b.png"\r\n',
    );

    expect(entries).toEqual([
      expect.objectContaining({ level: 'warn', aborted: true, method: 'POST', path: '/api/v1/blogs/' }),
    ]);
    expect(entries[0]).not.toHaveProperty('status');
  });

  it('logs a JSON body its client left half-sent as aborted, with no status either', async () => {
    // body-parser fails the read, and an answer written to the closed socket read as a status sent
    const entries = await leaveMidRequest(
      'left-mid-body',
      'POST /api/v1/auth/login HTTP/1.1',
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":',
    );

    expect(entries).toEqual([expect.objectContaining({ level: 'warn', aborted: true })]);
    expect(entries[0]).not.toHaveProperty('status');
  });

  it('gives concurrent requests different ids', async () => {
    const responses = await Promise.all([1, 2, 3, 4].map(() => api.get('/')));
    expect(new Set(responses.map((response) => response.headers['x-request-id'])).size).toBe(4);
  });
});

describe('secrets stay out of the log', () => {
  const password = 'Sup3r-Secret-Passw0rd!';

  /** Everything the log must never contain, from one signed-in user's request. */
  function secretsOf(user: { accessToken: string; refreshCookie: string }) {
    return [password, user.accessToken, user.refreshCookie.split('=')[1], 'Bearer '];
  }

  function expectNoSecrets(secrets: string[]) {
    const text = log.lines.join('\n');
    for (const secret of secrets) expect(text).not.toContain(secret);
  }

  it('logs register, login, refresh and logout without the password, tokens or cookie', async () => {
    const email = uniqueEmail('logged');
    const user = await registerUser(ctx.app, { email, password });
    await api.post('/auth/login').send({ email, password });
    await api.post('/auth/login').send({ email, password: `${password}-wrong` });
    await api.post('/auth/refresh-token').set('Cookie', user.refreshCookie);
    await api.as(user.accessToken).get('/users/current');
    await api.as(user.accessToken).post('/auth/logout').set('Cookie', user.refreshCookie);
    await settle();

    expect(log.entries().filter((entry) => entry.method !== undefined)).toHaveLength(6);
    expectNoSecrets(secretsOf(user));
  });

  it('on a 500, logs the error with the request id but without the password, tokens, cookie or headers', async () => {
    const user = await registerUser(ctx.app, { password });
    // authenticate() reads the user with findOne (the account must exist and not be being deleted)
    jest.spyOn(UserModel, 'findOne').mockRejectedValue(new Error('database exploded'));
    log.lines.length = 0;

    const response = await api
      .as(user.accessToken)
      .get('/users/current')
      .set('Cookie', `${user.refreshCookie}; other=${password}`)
      .set('X-Request-Id', 'failing-request-1');
    await settle();

    expect(response.status).toBe(500);
    expect(response.body).toEqual({ code: 'ServerError', message: 'Internal server error' });
    const entries = log.entries();
    const errorLine = entries.find((entry) => entry.level === 'error');
    expect(errorLine).toMatchObject({ requestId: 'failing-request-1', message: 'unexpected error' });
    expect(JSON.stringify(errorLine)).toContain('database exploded');
    expect(entries).toContainEqual(expect.objectContaining({ requestId: 'failing-request-1', status: 500 }));
    expectNoSecrets(secretsOf(user));
  });

  it('on a 500 while registering, the submitted password is not in any line', async () => {
    jest.spyOn(UserModel, 'create').mockRejectedValue(new Error('write failed'));

    const response = await api.post('/auth/register').send({ email: uniqueEmail(), password });
    await settle();

    expect(response.status).toBe(500);
    expect(log.entries().some((entry) => entry.level === 'error')).toBe(true);
    expectNoSecrets([password]);
  });

  it('redacts fields named like secrets when code logs them by mistake', () => {
    log.logger.warn('careless', {
      password,
      headers: { authorization: 'Bearer abc.def.ghi', cookie: 'refreshToken=xyz' },
    });

    expect(log.lines.join('\n')).not.toMatch(/Sup3r|abc\.def\.ghi|refreshToken=xyz/);
    expect(log.entries()[0]).toMatchObject({
      password: '[redacted]',
      headers: { authorization: '[redacted]', cookie: '[redacted]' },
    });
  });
});

describe("a preview link's token stays out of the log", () => {
  const admin = ctx.signedInAdmin();

  it('logs its reads without it, failures too', async () => {
    const draft = await createBlog(ctx.app, admin);
    const link = await api.as(admin).post(`/blogs/${draft._id}/preview-link`).send({}).expect(201);
    const token = link.body.token as string;
    log.lines.length = 0;

    await api.get(`/blogs/preview/${token}`).expect(200);
    jest.spyOn(BlogModel, 'findOne').mockImplementation(() => {
      throw new Error('database exploded');
    });
    await api.get(`/blogs/preview/${token}`).expect(500);
    await settle();

    // the read, the failed read, and the failure's error line
    expect(log.entries().filter((entry) => entry.path === '/api/v1/blogs/preview/…')).toHaveLength(3);
    expect(log.entries().find((entry) => entry.level === 'error')).toMatchObject({
      message: 'unexpected error',
      path: '/api/v1/blogs/preview/…',
    });
    const text = log.lines.join('\n');
    for (const part of token.split('.')) expect(text).not.toContain(part);
  });

  it('cuts it whatever the case of the path, which routing ignores', () => {
    expect(loggablePath('/API/V1/Blogs/Preview/abc.def?x=1')).toBe('/API/V1/Blogs/Preview/…');
    expect(loggablePath('/api/v1/blogs/preview-link')).toBe('/api/v1/blogs/preview-link');
  });
});
