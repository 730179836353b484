/**
 * Upload tricks on the banner form (POST /blogs/, as an admin): each is refused with a 4xx in the
 * spec's shape, with no blog record and no file left behind; a hostile file name changes nothing
 * about where a banner goes.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import request from 'supertest';
import { BANNER_LIMITS } from '../../src/services/banner-image';
import { makeImage } from '../helpers/images';
import { useTestApp } from '../helpers/test-app';
import { expectCleanRefusal, expectDatabaseUnchanged } from './helpers';

const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();

const bannersDir = () => path.join(ctx.uploadsDir, 'banners');
const storedFiles = () => (existsSync(bannersDir()) ? readdirSync(bannersDir()).sort() : []);

/** A blog form with a valid title and content; the test attaches what it is about. */
const blogForm = () => api.as(admin).post('/blogs/').field('title', 'An upload trick').field('content', '<p>x</p>');

/** Runs the upload and asserts it was refused with `status`, leaving no record and no file. */
async function expectRefusedUpload(send: () => Promise<request.Response>, status: number): Promise<request.Response> {
  const filesBefore = storedFiles();
  const response = await expectDatabaseUnchanged(send);
  expectCleanRefusal(response, status);
  expect(storedFiles()).toEqual(filesBefore);
  return response;
}

/** A PNG whose header claims another size (its IHDR rewritten, CRC fixed): the pixels do not follow. */
async function pngClaiming(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(await makeImage('png', 8, 8));
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

const SCRIPT = Buffer.from('<script>alert(document.cookie)</script>\n');
const SVG = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload="alert(1)"><script>alert(1)</script></svg>',
);

describe('files that are not what they claim', () => {
  it.each([
    ['a script renamed .png', SCRIPT, 'banner.png', 'image/png'],
    [
      'an HTML page renamed .jpg',
      Buffer.from('<!doctype html><html><body onload=alert(1)></body></html>'),
      'banner.jpg',
      'image/jpeg',
    ],
    ['an SVG with a script', SVG, 'banner.svg', 'image/svg+xml'],
    ['an SVG renamed .png', SVG, 'banner.png', 'image/png'],
  ])('%s: 400 ValidationError on banner_image', async (_label, file, filename, contentType) => {
    const response = await expectRefusedUpload(
      () => blogForm().attach('banner_image', file, { filename, contentType }),
      400,
    );
    expect(response.body.errors.banner_image).toMatchObject({
      path: 'banner_image',
      location: 'body',
      msg: 'Banner image must be a PNG, JPEG or WebP image',
    });
  });

  it('a PNG signature followed by a script (a polyglot that is no image): 400', async () => {
    const polyglot = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), SCRIPT]);
    const response = await expectRefusedUpload(() => blogForm().attach('banner_image', polyglot, 'banner.png'), 400);
    expect(response.body.errors.banner_image.msg).toMatch(/could not be decoded/);
  });

  it('a valid PNG carrying a script after IEND (a polyglot that is an image) is stored as its pixels only', async () => {
    const polyglot = Buffer.concat([await makeImage('png'), SCRIPT]);
    const response = await blogForm().attach('banner_image', polyglot, 'banner.png');
    expect(response.status).toBe(201);
    const served = await request(ctx.app).get(new URL(response.body.blog.banner.url).pathname);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.from(served.body).includes(SCRIPT)).toBe(false);
  });

  it('a truncated image: 400', async () => {
    const whole = await makeImage('jpeg', 200, 100);
    const response = await expectRefusedUpload(
      () => blogForm().attach('banner_image', whole.subarray(0, Math.floor(whole.length / 2)), 'banner.jpg'),
      400,
    );
    expect(response.body.errors.banner_image.msg).toMatch(/could not be decoded/);
  });

  it('a header claiming 30,000 × 30,000 pixels (a decompression bomb): 400 before any decoding', async () => {
    const bomb = await pngClaiming(30_000, 30_000);
    expect(bomb.length).toBeLessThan(2048);
    const response = await expectRefusedUpload(() => blogForm().attach('banner_image', bomb, 'banner.png'), 400);
    expect(response.body.errors.banner_image.msg).toBe(`Banner image must have at most ${BANNER_LIMITS.pixels} pixels`);
  });

  it.each([
    [BANNER_LIMITS.side + 1, 1],
    [2, BANNER_LIMITS.side + 1],
  ])(
    'a valid image of %i × %i pixels, a side past what WebP holds: 400, not a storage outage',
    async (width, height) => {
      const long = await makeImage('png', width, height);
      const response = await expectRefusedUpload(() => blogForm().attach('banner_image', long, 'banner.png'), 400);
      expect(response.body.errors.banner_image.msg).toBe(
        `Banner image must be at most ${BANNER_LIMITS.side} pixels wide and high`,
      );
    },
  );

  it('a valid image exactly as wide as WebP holds is taken, with its variants', async () => {
    const widest = await makeImage('png', BANNER_LIMITS.side, 1);
    const response = await blogForm().attach('banner_image', widest, 'banner.png');
    expect(response.status).toBe(201);
    expect(response.body.blog.banner.variants.at(-1)).toMatchObject({ width: BANNER_LIMITS.side, height: 1 });
  });

  it('a file over 2 MB: 413', async () => {
    const big = Buffer.alloc(BANNER_LIMITS.bytes + 1, 1);
    await expectRefusedUpload(() => blogForm().attach('banner_image', big, 'banner.png'), 413);
  });
});

describe('hostile form shapes', () => {
  it.each(['../../../../tmp/owned.png', '..\\..\\owned.png', '/etc/cron.d/owned.png', '.htaccess', 'x.png;.php'])(
    'a path in the file name (%j) decides nothing: the file gets a generated name in the banners folder',
    async (filename) => {
      const response = await blogForm().attach('banner_image', await makeImage('png'), {
        filename,
        contentType: 'image/png',
      });
      expect(response.status).toBe(201);
      const name = path.basename(new URL(response.body.blog.banner.url).pathname);
      expect(name).toMatch(/^[a-f0-9]{24}\.png$/);
      expect(storedFiles()).toContain(name);
      // generated names only: banners and their variants (`<banner>.<width>w.webp`)
      expect(storedFiles().every((file) => /^[a-f0-9]{24}\.(png|jpeg|webp)(\.\d+w\.webp)?$/.test(file))).toBe(true);
      expect(readdirSync(ctx.uploadsDir)).toEqual(['banners']);
    },
  );

  it('a NUL in the file name: 400, nothing stored', async () => {
    const image = await makeImage('png');
    await expectRefusedUpload(
      () => blogForm().attach('banner_image', image, { filename: 'banner.png\u0000.sh', contentType: 'image/png' }),
      400,
    );
  });

  it('two files in the banner field: 400', async () => {
    const image = await makeImage('png');
    await expectRefusedUpload(
      () => blogForm().attach('banner_image', image, 'one.png').attach('banner_image', image, 'two.png'),
      400,
    );
  });

  it('a file in an unexpected field: 400', async () => {
    const image = await makeImage('png');
    const response = await expectRefusedUpload(
      () => blogForm().attach('banner_image', image, 'banner.png').attach('avatar', image, 'avatar.png'),
      400,
    );
    expect(response.body.code).toBe('ValidationError');
  });

  it.each([
    [
      'a multipart body without a boundary',
      'multipart/form-data',
      '--x\r\nContent-Disposition: form-data; name="title"\r\n\r\nNo boundary\r\n--x--\r\n',
    ],
    [
      'a body cut off in the middle of a part',
      'multipart/form-data; boundary=xyz',
      '--xyz\r\nContent-Disposition: form-data; name="banner_image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\u0089PNG',
    ],
  ])('%s: 400 BadRequest', async (_case, contentType, body) => {
    const response = await expectRefusedUpload(
      () => api.as(admin).post('/blogs/').set('Content-Type', contentType).send(body),
      400,
    );
    expect(response.body.code).toBe('BadRequest');
  });
});
