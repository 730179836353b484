/**
 * Regression tests for what an outsider's attack on the API got through (issue 10): each case was a
 * 500 with an "unexpected error" log, a link built from the Host header, a banner stored byte for byte,
 * unlimited password guessing, a lossy offset or a username differing only in case.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { crc32, gzipSync } from 'node:zlib';
import mongoose from 'mongoose';
import sharp from 'sharp';
import request from 'supertest';
import { createApp } from '../../src/app';
import { UserModel } from '../../src/models/user.model';
import { ECHO_LIMITS } from '../../src/middlewares/validate';
import { backfillUsernameKeys } from '../../src/models/user.migrations';
import { PAGINATION } from '../../src/schemas/common';
import { createBlog } from '../helpers/blogs';
import { makeImage } from '../helpers/images';
import { captureLog, settle } from '../helpers/log-capture';
import { PRODUCTION_ENV, useTestApp } from '../helpers/test-app';
import { agent } from '../helpers/agent';
import { bearer, registerUser } from '../helpers/users';
import { expectCleanRefusal, expectDatabaseUnchanged } from './helpers';

const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();

const storedFileOf = (url: string) => path.join(ctx.uploadsDir, 'banners', path.basename(new URL(url).pathname));

/** Sends a Buffer body as its bytes (superagent would serialise it as JSON for a JSON Content-Type). */
const raw = (body: unknown) => body as string;

/** An app of this file's configuration whose log the test reads. */
function appWithLog() {
  const log = captureLog('warn');
  return { app: createApp({ config: ctx.config, logger: log.logger }), log };
}
const unexpectedErrors = (log: ReturnType<typeof captureLog>) =>
  log.entries().filter((entry) => entry.level === 'error' || /unexpected/.test(String(entry.message)));

describe("client mistakes answer 4xx in the spec's shape, never 500, and log no error", () => {
  it.each([
    ['gzip', Buffer.from('{"email":"a@b.co","password":"password123"}')],
    ['deflate', Buffer.from('not deflated at all')],
    ['br', Buffer.from('not brotli either')],
  ])('a body that says Content-Encoding: %s and is not: 400 BadRequest', async (encoding, body) => {
    const { app, log } = appWithLog();
    const response = await expectDatabaseUnchanged(() =>
      agent(app)
        .post('/auth/login')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', encoding)
        .serialize(raw)
        .send(body),
    );
    expectCleanRefusal(response, 400);
    expect(response.body.code).toBe('BadRequest');
    await settle();
    expect(unexpectedErrors(log)).toEqual([]);
  });

  it('a body in an unsupported encoding: 415', async () => {
    const response = await api
      .post('/auth/login')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'compress')
      .serialize(raw)
      .send(Buffer.from('{}'));
    expectCleanRefusal(response, 415);
  });

  it('a body really gzipped is still read', async () => {
    const signedIn = await registerUser(ctx.app);
    const body = gzipSync(JSON.stringify({ email: signedIn.user.email, password: signedIn.password }));
    const response = await api
      .post('/auth/login')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize(raw)
      .send(body);
    expect(response.body).toMatchObject({ user: { email: signedIn.user.email } });
  });

  it.each([
    ['an array', (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`],
    ['an object', (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`],
  ])(
    'a field nested 5,000 levels deep as %s: 400 ValidationError, its value echoed cut short',
    async (_kind, nested) => {
      const { app, log } = appWithLog();
      const body = `{"email":${nested(5000)},"password":"password123"}`;
      const response = await agent(app).post('/auth/login').set('Content-Type', 'application/json').send(body);
      expectCleanRefusal(response, 400);
      expect(response.body.errors.email).toMatchObject({ path: 'email', location: 'body' });
      expect(response.body.errors.email.value.length).toBeLessThanOrEqual(ECHO_LIMITS.characters + 1);
      await settle();
      expect(unexpectedErrors(log)).toEqual([]);
    },
  );

  it('a deep value in a profile update: 400, nothing changed', async () => {
    const signedIn = await registerUser(ctx.app);
    const body = `{"first_name":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const response = await expectDatabaseUnchanged(() =>
      api.as(signedIn).put('/users/current').set('Content-Type', 'application/json').send(body),
    );
    expectCleanRefusal(response, 400);
    expect(response.body.errors.first_name.value.length).toBeLessThanOrEqual(ECHO_LIMITS.characters + 1);
  });

  it('echoes a long refused value only in part', async () => {
    const response = await api
      .post('/auth/register')
      .send({ email: `${'a'.repeat(60_000)}@example.com`, password: 'password123' });
    expectCleanRefusal(response, 400);
    expect(response.body.errors.email.value).toBe(`${'a'.repeat(ECHO_LIMITS.characters)}…`);
  });

  it('echoes a wide object only in part, and a "__proto__" key in it as data', async () => {
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    const response = await api
      .post('/auth/register')
      .set('Content-Type', 'application/json')
      .send(`{"email":{"__proto__":{"polluted":true},${JSON.stringify(wide).slice(1)},"password":"password123"}`);
    expectCleanRefusal(response, 400);
    expect(response.body.errors.email.value.length).toBeLessThanOrEqual(ECHO_LIMITS.characters + 1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each(['/api/v1/blogs/%E0%A4%A', '/api/v1/users/%zz', '/api/v1/comments/blog/%', '/api/v1/likes/blog/%E0%A4%A'])(
    'malformed percent-encoding in a path parameter (%s): 400 BadRequest',
    async (url) => {
      const { app, log } = appWithLog();
      const response = await expectDatabaseUnchanged(() => request(app).get(url).set(bearer(admin)));
      expectCleanRefusal(response, 400);
      expect(response.body).toEqual({ code: 'BadRequest', message: 'The URL contains malformed percent-encoding' });
      await settle();
      expect(unexpectedErrors(log)).toEqual([]);
    },
  );
});

describe('error bodies', () => {
  afterEach(() => jest.restoreAllMocks());

  it("carry neither a stack nor the driver's message when the database fails a query", async () => {
    const driverError = new mongoose.mongo.MongoServerError({
      errmsg: 'BadValue: internal detail of db-7.internal:27017, collection blog.users',
      code: 2,
    });
    jest.spyOn(UserModel, 'countDocuments').mockImplementation(() => {
      throw driverError;
    });
    const response = await api.as(admin).get('/users/');
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(response.body).toEqual({ code: expect.any(String), message: expect.any(String) });
    expect(response.text).not.toMatch(/db-7|BadValue|blog\.users|MongoServerError|\n\s+at /);
  });
});

describe('public URLs come from the configuration only', () => {
  it("stores a banner URL on PUBLIC_URL whatever Host the admin's request names", async () => {
    const response = await api
      .as(admin)
      .post('/blogs/')
      .set('Host', 'evil.example')
      .set('X-Forwarded-Host', 'evil.example')
      .field('title', 'Posted with a forged Host')
      .field('content', '<p>x</p>')
      .attach('banner_image', await makeImage('png'), 'banner.png');
    expect(response.status).toBe(201);
    expect(response.body.blog.banner.url).toMatch(
      new RegExp(`^${ctx.config.publicUrl}/uploads/banners/[a-f0-9]{24}\\.png$`),
    );
    expect(JSON.stringify(await mongoose.connection.db!.collection('blogs').find().toArray())).not.toContain(
      'evil.example',
    );
  });

  it("builds the root's docs link on PUBLIC_URL in production, not on the Host header", async () => {
    const production = ctx.buildApp({
      ...PRODUCTION_ENV,
      PUBLIC_URL: 'https://blog.example.com/',
      TRUST_PROXY: 'true',
    });
    const response = await agent(production.app)
      .get('/')
      .set('Host', 'evil.example')
      .set('X-Forwarded-Host', 'evil.example');
    expect(response.body.docs).toBe('https://blog.example.com/api/v1/docs');
  });

  it('builds it on http://localhost:<PORT> outside production without PUBLIC_URL', async () => {
    const other = ctx.buildApp({ PORT: '8123' });
    const response = await agent(other.app).get('/').set('Host', 'evil.example');
    expect(response.body.docs).toBe('http://localhost:8123/api/v1/docs');
  });
});

/** A PNG with an extra chunk right after IHDR (chunk type and data as given, CRC computed). */
function withChunk(png: Buffer, type: string, data: Buffer): Buffer {
  const ihdrEnd = 8 + 4 + 4 + 13 + 4;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([png.subarray(0, ihdrEnd), length, typeAndData, crc, png.subarray(ihdrEnd)]);
}

const SCRIPT = '<script>alert(document.cookie)</script>';

describe('banners are re-encoded: only the pixels are stored and served', () => {
  it.each([
    [
      'a script in a PNG text chunk',
      async () => withChunk(await makeImage('png'), 'tEXt', Buffer.from(`Comment\0${SCRIPT}`, 'latin1')),
    ],
    ['a script after IEND', async () => Buffer.concat([await makeImage('png'), Buffer.from(SCRIPT)])],
    [
      "a script in a JPEG's EXIF",
      async () =>
        sharp(await makeImage('jpeg'))
          .jpeg()
          .withExif({ IFD0: { ImageDescription: SCRIPT } })
          .toBuffer(),
    ],
    ['a script after a WebP', async () => Buffer.concat([await makeImage('webp'), Buffer.from(SCRIPT)])],
  ])('%s is gone from the stored file, which still shows the picture', async (_label, make) => {
    const upload = await make();
    expect(upload.includes(SCRIPT)).toBe(true);
    const blog = await createBlog(ctx.app, admin, { banner: upload });
    const stored = readFileSync(storedFileOf((blog.banner as { url: string }).url));
    expect(stored.includes(SCRIPT)).toBe(false);
    expect(stored.includes('<script')).toBe(false);
    const metadata = await sharp(stored).metadata();
    expect(metadata).toMatchObject({ width: 64, height: 48 });
    expect(metadata.exif).toBeUndefined();
  });

  it('drops GPS coordinates and camera data from a JPEG', async () => {
    const upload = await sharp(await makeImage('jpeg'))
      .jpeg()
      .withExif({ IFD0: { Make: 'SpyCam', Model: 'X1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 24/1' } })
      .toBuffer();
    expect((await sharp(upload).metadata()).exif).toBeDefined();
    const blog = await createBlog(ctx.app, admin, { banner: upload, filename: 'photo.jpg' });
    const stored = readFileSync(storedFileOf((blog.banner as { url: string }).url));
    const metadata = await sharp(stored).metadata();
    expect(metadata).toMatchObject({ format: 'jpeg', width: 64, height: 48 });
    expect(metadata.exif).toBeUndefined();
    expect(stored.includes('SpyCam')).toBe(false);
  });

  it('applies the EXIF orientation to the pixels before dropping the tag (a portrait stays portrait)', async () => {
    // 64 x 48 pixels stored landscape, tagged "rotate 90°" (orientation 6): the picture is 48 x 64
    const upload = await sharp(await makeImage('jpeg'))
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const blog = await createBlog(ctx.app, admin, { banner: upload });
    expect(blog.banner).toMatchObject({ width: 48, height: 64 });
    const metadata = await sharp(readFileSync(storedFileOf((blog.banner as { url: string }).url))).metadata();
    expect(metadata).toMatchObject({ width: 48, height: 64 });
    expect(metadata.orientation).toBeUndefined();
  });
});

describe('offset is bounded', () => {
  it.each(['/users/', '/blogs/', `/blogs/user/${'a'.repeat(24)}`])(
    'refuses offset=99999999999999999999 and offset=max+1 on %s, accepts offset=max',
    async (url) => {
      for (const offset of ['99999999999999999999', String(PAGINATION.maxOffset + 1), '1e3']) {
        const response = await api.as(admin).get(`${url}?offset=${offset}`);
        expectCleanRefusal(response, 400);
        expect(response.body.errors.offset).toMatchObject({ path: 'offset', location: 'query' });
      }
      const atMost = await api.as(admin).get(`${url}?offset=${PAGINATION.maxOffset}`);
      expect(atMost.status).toBe(200);
      expect(atMost.body.offset).toBe(PAGINATION.maxOffset);
    },
  );

  it("is documented, with its maximum, on the contract's offset parameter", async () => {
    const document = (await api.get('/openapi.json')).body;
    expect(document.components.parameters.Offset.schema.maximum).toBe(PAGINATION.maxOffset);
    expect(document.components.parameters.Offset.description).toContain(String(PAGINATION.maxOffset));
  });
});

describe('usernames are unique whatever their case', () => {
  it('refuses ADMIN beside admin, and leaves both accounts as they were', async () => {
    const first = await registerUser(ctx.app);
    const second = await registerUser(ctx.app);
    const taken = `Case${Date.now() % 100000}`;
    expect((await api.as(first).put('/users/current').send({ username: taken.toLowerCase() })).status).toBe(200);

    for (const variant of [taken.toUpperCase(), taken, taken.toLowerCase()]) {
      const response = await expectDatabaseUnchanged(() =>
        api.as(second).put('/users/current').send({ username: variant }),
      );
      expectCleanRefusal(response, 400);
      expect(response.body.errors.username).toMatchObject({ path: 'username', msg: 'This username is already in use' });
    }
  });

  it('keeps the case its owner chose, and lets the owner change only the case', async () => {
    const signedIn = await registerUser(ctx.app);
    const name = `MiXed${Date.now() % 100000}`;
    const response = await api.as(signedIn).put('/users/current').send({ username: name });
    expect(response.body.user.username).toBe(name);
    expect(Object.keys(response.body.user)).not.toContain('usernameKey');
    const recased = await api.as(signedIn).put('/users/current').send({ username: name.toLowerCase() });
    expect(recased.status).toBe(200);
  });

  it('covers accounts older than the rule once the start-up backfill has run', async () => {
    const legacyId = new mongoose.Types.ObjectId();
    const twinId = new mongoose.Types.ObjectId();
    const now = new Date();
    const legacy = {
      username: 'Legacy',
      email: 'legacy@example.com',
      password: 'x',
      role: 'user',
      deletingAt: null,
      createdAt: now,
      updatedAt: now,
    };
    // records written before usernameKey existed, one pair differing only in case
    await UserModel.collection.insertMany([
      { _id: legacyId, ...legacy },
      { _id: twinId, ...legacy, username: 'LEGACY', email: 'legacy2@example.com' },
    ]);
    const log = captureLog('info');
    await backfillUsernameKeys(log.logger);

    const keys = await UserModel.collection.find({ _id: { $in: [legacyId, twinId] } }).toArray();
    // sort() puts undefined last
    expect(keys.map((user) => user.usernameKey).sort()).toEqual(['legacy', undefined]);
    expect(log.entries()).toContainEqual(
      expect.objectContaining({ level: 'warn', message: expect.stringContaining('only in case') }),
    );

    const newcomer = await registerUser(ctx.app);
    const response = await api.as(newcomer).put('/users/current').send({ username: 'legacy' });
    expectCleanRefusal(response, 400);
    await UserModel.collection.deleteMany({ _id: { $in: [legacyId, twinId] } });
  });
});
