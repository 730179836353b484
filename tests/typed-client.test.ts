/**
 * The typed client for SPA developers (clients/typescript/): its generated types are those of today's
 * OpenAPI document (drift check), and the client works against the real app over real HTTP: sign-up,
 * the blog list, a refresh through the cookie on 401 with one retry, logout.
 * Node's fetch has no cookie jar, so the test hands the client a fetch with one, as a browser has.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { createBlogApiClient, formDataBody, type BlogApiClient } from '../clients/typescript';
import { bundleArguments } from './helpers/test-build';
import { createBlog } from './helpers/blogs';
import { makeImage } from './helpers/images';
import { useTestApp } from './helpers/test-app';
import { uniqueEmail } from './helpers/users';

const PROJECT_ROOT = path.resolve(__dirname, '..');
const SCHEMA_FILE = path.join(PROJECT_ROOT, 'clients', 'typescript', 'schema.d.ts');

/**
 * What `npm run client:generate` would write now (a child process: see tools/typed-client/generate.ts),
 * run from the bundle tests/global-setup.ts built of it.
 */
async function generateSchemaTypes(): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...bundleArguments(path.join('tools', 'typed-client', 'generate.ts')), '--stdout'],
    { cwd: PROJECT_ROOT, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return stdout;
}

describe('typed client types (clients/typescript/schema.d.ts)', () => {
  it('are what openapi-typescript generates from the document today (else: npm run client:generate)', async () => {
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    const fresh = await generateSchemaTypes();
    // toBe would print two 90 KB strings; name the first differing line instead.
    if (committed !== fresh) {
      const committedLines = committed.split('\n');
      const freshLines = fresh.split('\n');
      const line = freshLines.findIndex((text, index) => text !== committedLines[index]);
      throw new Error(
        `clients/typescript/schema.d.ts is out of date: run npm run client:generate (first difference at line ${line + 1}: ` +
          `committed ${JSON.stringify(committedLines[line])}, generated ${JSON.stringify(freshLines[line])})`,
      );
    }
    expect(fresh).toContain('"/auth/refresh-token"');
  }, 90_000); // a child process on a loaded machine: generous, and a deadline all the same
});

/**
 * Type-checks `calls` (statements using `api`, a BlogApiClient) as a front end would, and gives the
 * errors by the call's line (1-based within `calls`).
 */
function typeErrorsOf(calls: string[]): Map<number, string> {
  const directory = mkdtempSync(path.join(tmpdir(), 'typed-client-usage-'));
  const file = path.join(directory, 'usage.ts');
  const prelude = [
    `import { createBlogApiClient, formDataBody } from ${JSON.stringify(path.join(PROJECT_ROOT, 'clients', 'typescript'))};`,
    "const api = createBlogApiClient({ baseUrl: 'http://localhost:3000/api/v1' });",
    'export async function usage(): Promise<void> {',
  ];
  writeFileSync(file, [...prelude, ...calls, '}', ''].join('\n'));
  try {
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      moduleResolution: ts.ModuleResolutionKind.Node10,
      lib: ['lib.es2022.d.ts'],
      types: ['node'],
      typeRoots: [path.join(PROJECT_ROOT, 'node_modules', '@types')],
      skipLibCheck: true,
    });
    const errors = new Map<number, string>();
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      if (diagnostic.file?.fileName !== file || diagnostic.start === undefined) {
        throw new Error(
          `unexpected error outside the usage: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
        );
      }
      const line = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 - prelude.length;
      errors.set(line, ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '));
    }
    return errors;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe('typed client bodies (compiled as a front end would)', () => {
  it('refuses at compile time every field the API refuses as unknown, and accepts the documented ones and aliases', () => {
    const refused = [
      "await api.POST('/auth/login', { body: { email: 'a@example.com', password: 'password123', remember: true } });",
      "await api.POST('/auth/login', { body: { email: 'a@example.com', password: 'password123', confirm_password: 'x' } });",
      "await api.PUT('/users/current', { body: { nickname: 'Ada' } });",
      "await api.PUT('/users/current', { body: { first_name: 'Ada', role: 'admin' } });",
      "await api.POST('/auth/register', { body: { email: 'a@example.com', password: 'password123', username: 'ada' } });",
      "await api.POST('/comments/blog/{blogId}', { params: { path: { blogId: 'x' } }, body: { content: 'Hi', author: 'x' } });",
    ];
    const accepted = [
      "await api.POST('/auth/login', { body: { email: 'a@example.com', password: 'password123' } });",
      "await api.POST('/auth/register', { body: { email: 'a@example.com', password: 'password123', confirm_password: 'password123', role: 'user' } });",
      "await api.PUT('/users/current', { body: { firstName: 'Ada', lastName: 'L', socialLinks: { website: 'https://a.example' } } });",
      "await api.PUT('/users/current', { body: { first_name: 'Ada', website: '', password: 'password123', confirm_password: 'password123' } });",
      "await api.POST('/comments/blog/{blogId}', { params: { path: { blogId: 'x' } }, body: { content: 'Hi' } });",
      "await api.POST('/auth/refresh-token');",
      "const page = await api.GET('/blogs/', { params: { query: { limit: 10 } } }); page.data?.blogs.map((blog) => blog.title);",
      // an update's body is optional: the serializer takes what an optional body may be
      "await api.PUT('/blogs/{blogId}', { params: { path: { blogId: 'x' } }, body: { status: 'published' }, bodySerializer: formDataBody });",
    ];

    const errors = typeErrorsOf([...refused, ...accepted]);

    expect([...errors.keys()].sort((a, b) => a - b)).toEqual(refused.map((_call, index) => index + 1));
    for (const message of errors.values()) expect(message).toMatch(/not assignable to type 'never'/);
  }, 60_000);
});

describe('typed client lists (compiled as a front end would)', () => {
  it('answers cards for fields=card and whole blogs without it, on both lists, with no narrowing to write', () => {
    const calls = [
      "const cards = await api.GET('/blogs/', { params: { query: { fields: 'card', limit: 5 } } });",
      'cards.data?.blogs.map((card) => [card.author?.name, card.status, card.excerpt]);',
      "const whole = await api.GET('/blogs/user/{userId}', { params: { path: { userId: 'x' } } });",
      'whole.data?.blogs.map((blog) => [blog.content, blog.author?.username, blog.viewsCount]);',
      "const either = await api.GET('/blogs/', { params: { query: { fields: Date.now() > 0 ? 'card' : undefined } } });",
      "either.data?.blogs.map((blog) => ('content' in blog ? blog.content : blog.author?.name));",
      // what the other page has, refused on each
      'cards.data?.blogs.map((card) => card.content);',
      'whole.data?.blogs.map((blog) => blog.author?.name);',
      'either.data?.blogs.map((blog) => blog.content);',
    ];

    const errors = typeErrorsOf(calls);

    expect([...errors.keys()].sort((a, b) => a - b)).toEqual([7, 8, 9]);
    expect(errors.get(7)).toMatch(/Property 'content' does not exist/);
    expect(errors.get(8)).toMatch(/Property 'name' does not exist/);
    expect(errors.get(9)).toMatch(/Property 'content' does not exist/);
  }, 60_000);
});

describe('the examples of docs/spa.md', () => {
  it('type-check as written, against the client of today', () => {
    const guide = readFileSync(path.join(PROJECT_ROOT, 'docs', 'spa.md'), 'utf8');
    const examples = [...guide.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1].trimEnd().split('\n'));
    expect(examples.length).toBeGreaterThanOrEqual(4);
    // what the examples take from the page around them, in a block of its own each
    const given = [
      "const title = 'A title';",
      "const content = '<p>Text</p>';",
      'const file = new Blob([]);',
      "const tag = 'news';",
      "const box = { value: 'words' };",
      'const show = (..._shown: unknown[]) => undefined;',
    ];
    const errors = typeErrorsOf(examples.flatMap((lines) => ['{', ...given, ...lines, '}']));
    expect([...errors.values()]).toEqual([]);
  }, 60_000);
});

/** A fetch that keeps cookies per name, as a browser does for one site (paths and expiry aside). */
function fetchWithCookieJar(jar: Map<string, string>, calls: string[]) {
  return async (request: Request): Promise<Response> => {
    if (jar.size > 0) {
      request.headers.set('Cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await fetch(request);
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair, ...attributes] = setCookie.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      const expired = attributes.some(
        (attribute) => /^\s*expires=/i.test(attribute) && Date.parse(attribute.split('=')[1]) < Date.now(),
      );
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    calls.push(`${request.method} ${new URL(request.url).pathname} ${response.status}`);
    return response;
  };
}

describe('typed client against the real app', () => {
  let server: Server;
  let baseUrl: string;
  let publishedTitle: string;
  // Declared before useTestApp: the server closes before the database goes (afterAll hooks run in order).
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const ctx = useTestApp();
  const admin = ctx.signedInAdmin();

  beforeAll(async () => {
    publishedTitle = `A published post ${process.pid}`;
    await createBlog(ctx.app, admin, { title: publishedTitle, status: 'published' });
    await createBlog(ctx.app, admin, { title: `A draft ${process.pid}`, status: 'draft' });
    server = ctx.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });

  function newClient(): { api: BlogApiClient; jar: Map<string, string>; calls: string[] } {
    const jar = new Map<string, string>();
    const calls: string[] = [];
    return { api: createBlogApiClient({ baseUrl, fetch: fetchWithCookieJar(jar, calls) }), jar, calls };
  }

  it('signs up, reads the blog list, refreshes through the cookie on 401, retries once, and logs out', async () => {
    const { api, jar, calls } = newClient();
    const email = uniqueEmail('client');

    const registered = await api.POST('/auth/register', { body: { email, password: 'password123' } });
    expect(registered.response.status).toBe(201);
    expect(registered.data?.user.email).toBe(email);
    expect(api.accessToken).toBe(registered.data?.accessToken);
    expect(jar.has('refreshToken')).toBe(true);

    const list = await api.GET('/blogs/', { params: { query: { limit: 10 } } });
    expect(list.response.status).toBe(200);
    expect(list.data?.blogs.map((blog) => blog.title)).toEqual([publishedTitle]);

    // A page reload loses the in-memory access token; the cookie still proves the session.
    api.forgetAccessToken();
    calls.length = 0;
    const current = await api.GET('/users/current');
    expect(current.response.status).toBe(200);
    expect(current.data?.user.email).toBe(email);
    expect(calls).toEqual([
      'GET /api/v1/users/current 401',
      'POST /api/v1/auth/refresh-token 200',
      'GET /api/v1/users/current 200',
    ]);
    expect(api.accessToken).toEqual(expect.any(String));

    const loggedOut = await api.POST('/auth/logout');
    expect(loggedOut.response.status).toBe(200);
    expect(api.accessToken).toBeUndefined();
    expect(jar.has('refreshToken')).toBe(false);

    // Signed out for good: the 401 stands after one failed refresh, and is not retried again.
    calls.length = 0;
    const afterLogout = await api.GET('/users/current');
    expect(afterLogout.response.status).toBe(401);
    // the error type is the union the document gives, 429's {error} included: narrow before reading code
    expect(afterLogout.error && 'code' in afterLogout.error && afterLogout.error.code).toBe('AuthenticationError');
    expect(calls).toEqual(['GET /api/v1/users/current 401', 'POST /api/v1/auth/refresh-token 401']);
  });

  it('refreshes once for several requests that meet a stale token together', async () => {
    const { api, calls } = newClient();
    await api.POST('/auth/register', { body: { email: uniqueEmail('client'), password: 'password123' } });
    api.forgetAccessToken();
    calls.length = 0;

    const answers = await Promise.all([api.GET('/users/current'), api.GET('/blogs/'), api.GET('/users/current')]);

    expect(answers.map((answer) => answer.response.status)).toEqual([200, 200, 200]);
    expect(calls.filter((call) => call.startsWith('POST /api/v1/auth/refresh-token'))).toEqual([
      'POST /api/v1/auth/refresh-token 200',
    ]);
  });

  it('sends a multipart body with a file: an admin posts a blog with its banner', async () => {
    const { api } = newClient();
    await api.POST('/auth/login', { body: { email: 'admin@example.com', password: 'password123' } });
    const banner = new Blob([await makeImage('png')], { type: 'image/png' });

    const created = await api.POST('/blogs/', {
      body: {
        title: `Posted by the typed client ${process.pid}`,
        content: '<p>Hello</p>',
        status: 'draft',
        tags: ['Typed', 'client'],
        banner_image: banner,
      },
      bodySerializer: formDataBody,
    });

    expect(created.response.status).toBe(201);
    expect(created.data?.blog).toMatchObject({
      title: `Posted by the typed client ${process.pid}`,
      status: 'draft',
      tags: ['typed', 'client'],
    });
    const cards = await api.GET('/blogs/', { params: { query: { tag: 'typed', fields: 'card' } } });
    expect(cards.data?.blogs.map((blog) => blog.excerpt)).toEqual(['Hello']);

    // an empty list is "none", as the document says: sent as one empty field, not left out
    const cleared = await api.PUT('/blogs/{blogId}', {
      params: { path: { blogId: created.data!.blog._id } },
      body: { tags: [] },
      bodySerializer: formDataBody,
    });
    expect(cleared.data?.blog.tags).toEqual([]);
  });

  it('gives the error body typed by the document, without a refresh, for a 400', async () => {
    const { api, calls } = newClient();

    const answer = await api.POST('/auth/register', { body: { email: 'not-an-email', password: 'short' } });

    expect(answer.response.status).toBe(400);
    const error = answer.error && 'errors' in answer.error ? answer.error : undefined;
    expect(error?.code).toBe('ValidationError');
    expect(Object.keys(error?.errors ?? {})).toEqual(expect.arrayContaining(['email', 'password']));
    expect(calls).toEqual(['POST /api/v1/auth/register 400']);
  });
});
