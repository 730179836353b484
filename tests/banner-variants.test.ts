/**
 * Responsive banners: each banner is also stored in the standard widths below its own and in its own
 * width, as WebP, decoded here to prove what is served; they go with their banner (replacement, deletion,
 * the orphan sweep); an upload that misses its deadline leaves nothing; and `npm run banners:backfill`
 * gives an older blog its variants, on local storage and on Cloudinary (the real SDK against
 * tests/helpers/fake-cloudinary.ts), safely when run twice at once.
 */
import { existsSync, readdirSync, utimesSync } from 'node:fs';
import path from 'node:path';
import mongoose from 'mongoose';
import sharp from 'sharp';
import request from 'supertest';
import { BlogModel } from '../src/models/blog.model';
import { createReconciliationService } from '../src/services/reconciliation.service';
import { createLocalStorage, localBannersDirectory } from '../src/services/storage/local-storage';
import { createBlog, postBlog } from './helpers/blogs';
import { cloudinaryEnv, startFakeCloudinary, type FakeCloudinary } from './helpers/fake-cloudinary';
import { makeImage } from './helpers/images';
import { captureLog } from './helpers/log-capture';
import { databaseUri, runToExit } from './helpers/server-process';
import { useTestApp } from './helpers/test-app';

let cloud: FakeCloudinary;
beforeAll(async () => {
  cloud = await startFakeCloudinary();
});
afterAll(() => cloud.close());
const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();

interface Variant {
  url: string;
  width: number;
  height: number;
  format: string;
}
interface Banner {
  url: string;
  width: number;
  height: number;
  variants: Variant[];
}

const directory = () => localBannersDirectory(ctx.uploadsDir);
const fileOf = (url: string) => path.join(directory(), path.basename(new URL(url).pathname));
const bannerOf = (blog: Record<string, unknown>) => blog.banner as Banner;
/** The banner's own file and its variants' files, as the folder holds them. */
const filesOf = (banner: Banner) => [banner.url, ...banner.variants.map((variant) => variant.url)].map(fileOf);

/** Each variant as served: fetched from the app and decoded, with its declared size and format. */
async function expectServedVariants(banner: Banner) {
  for (const variant of banner.variants) {
    const served = await request(ctx.app).get(new URL(variant.url).pathname);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/webp');
    const decoded = await sharp(served.body).metadata();
    expect({ format: decoded.format, width: decoded.width, height: decoded.height }).toEqual({
      format: variant.format,
      width: variant.width,
      height: variant.height,
    });
  }
}

/** What a blog stored before variants looks like in the database. */
const makeOlder = (blogId: string) =>
  BlogModel.updateOne({ _id: blogId }, { $unset: { 'banner.variants': 1 } }, { timestamps: false });

/** `npm run banners:backfill` against this file's database, with these storage settings. */
const backfill = (env: Record<string, string> = {}, args: string[] = []) =>
  runToExit(path.join('cli', 'backfill-banners.ts'), args, {
    MONGODB_URI: databaseUri(mongoose.connection.name),
    UPLOADS_DIR: ctx.uploadsDir,
    JWT_ACCESS_SECRET: 'a'.repeat(32),
    JWT_REFRESH_SECRET: 'b'.repeat(32),
    LOG_LEVEL: 'warn',
    ...env,
  });
const reportOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!);

describe('variants of an uploaded banner (local storage)', () => {
  it('stores 320, 640, 1280 and its own width as WebP, narrowest first, proportional, served as declared', async () => {
    const blog = await createBlog(ctx.app, admin, { banner: await makeImage('jpeg', 1500, 600), filename: 'b.jpg' });
    const banner = bannerOf(blog);

    expect(banner).toMatchObject({ width: 1500, height: 600 });
    expect(banner.variants.map(({ width, height, format }) => [width, height, format])).toEqual([
      [320, 128, 'webp'],
      [640, 256, 'webp'],
      [1280, 512, 'webp'],
      [1500, 600, 'webp'],
    ]);
    const key = path.basename(banner.url);
    expect(banner.variants.map((variant) => path.basename(variant.url))).toEqual(
      [320, 640, 1280, 1500].map((width) => `${key}.${width}w.webp`),
    );
    await expectServedVariants(banner);
    // a reader's read shows the same
    expect(bannerOf((await api.as(admin).get(`/blogs/${blog.slug}`)).body.blog)).toEqual(banner);
  });

  it('never upscales: a banner narrower than 320 has one variant, its own size', async () => {
    const banner = bannerOf(await createBlog(ctx.app, admin, { banner: await makeImage('png', 200, 90) }));

    expect(banner.variants).toEqual([{ url: expect.any(String), width: 200, height: 90, format: 'webp' }]);
    await expectServedVariants(banner);
  });

  it('deletes the old variants with a replaced banner, and every file with the blog', async () => {
    const blog = await createBlog(ctx.app, admin, { banner: await makeImage('png', 700, 300) });
    const oldFiles = filesOf(bannerOf(blog));
    expect(oldFiles.map(existsSync)).toEqual([true, true, true, true]); // the banner, 320, 640, 700

    const replaced = await api
      .as(admin)
      .put(`/blogs/${blog._id}`)
      .attach('banner_image', await makeImage('webp', 400, 100), 'new.webp');
    expect(replaced.status).toBe(200);
    const newFiles = filesOf(bannerOf(replaced.body.blog));
    expect(oldFiles.filter(existsSync)).toEqual([]);
    expect(newFiles.map(existsSync)).toEqual([true, true, true]); // the banner, 320, 400

    await api.as(admin).delete(`/blogs/${blog._id}?permanent=true`).expect(204);
    expect(newFiles.filter(existsSync)).toEqual([]);
  });

  it('sweeps the variants of an orphaned banner with it, and keeps those of a banner a blog names', async () => {
    const kept = bannerOf(await createBlog(ctx.app, admin, { banner: await makeImage('png', 700, 300) }));
    const orphaned = await createBlog(ctx.app, admin, { banner: await makeImage('png', 700, 300) });
    // what a crash between the blog's deletion and its files' leaves: files no blog names
    await BlogModel.deleteOne({ _id: orphaned._id });
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000);
    for (const file of [...filesOf(kept), ...filesOf(bannerOf(orphaned))]) utimesSync(file, twoHoursAgo, twoHoursAgo);

    const swept = await createReconciliationService({
      storage: createLocalStorage(ctx.uploadsDir),
      logger: captureLog().logger,
      orphanMinAgeMs: 60 * 60_000,
    }).sweepOrphanBanners();

    expect(swept.removed).toContain(path.basename(bannerOf(orphaned).url));
    expect(filesOf(bannerOf(orphaned)).filter(existsSync)).toEqual([]);
    expect(filesOf(kept).every(existsSync)).toBe(true);
  });

  it('answers 502 and leaves no file and no blog when the variants miss the storage deadline', async () => {
    const { app } = ctx.buildApp({ STORAGE_SAVE_TIMEOUT_MS: '100' });
    const before = readdirSync(directory()).length;
    // a 12-megapixel banner (of one colour, to stay under 2 MB): its re-encoding is not bound by the
    // storage deadline, its variants are
    const banner = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#3366cc' } })
      .jpeg()
      .toBuffer();

    const response = await postBlog(app, admin, { title: 'Too slow to store', banner, filename: 'b.jpg' });

    expect(response.status).toBe(502);
    expect(response.body).toEqual({ code: 'ServerError', message: expect.any(String) });
    expect(await BlogModel.countDocuments({ title: 'Too slow to store' })).toBe(0);
    expect(readdirSync(directory()).length).toBe(before);
  });
});

describe('npm run banners:backfill', () => {
  it('gives older blogs their variants, twice at once without harm, then finds nothing to do', async () => {
    const banner = await makeImage('png', 700, 300);
    const blogs = await Promise.all([1, 2, 3].map(() => createBlog(ctx.app, admin, { banner })));
    const made = blogs.map((blog) => bannerOf(blog).variants);
    for (const blog of blogs) await makeOlder(blog._id);
    for (const variants of made) for (const variant of variants) expect(existsSync(fileOf(variant.url))).toBe(true);
    // older blogs read as before, with no variants: the same shape for every blog
    const older = (await api.as(admin).get(`/blogs/${blogs[0].slug}`)).body.blog;
    expect(bannerOf(older).variants).toEqual([]);

    const [first, second] = await Promise.all([backfill(), backfill()]);

    expect([first.code, second.code]).toEqual([0, 0]);
    const reports = [reportOf(first.stdout), reportOf(second.stdout)];
    expect(reports.reduce((sum, report) => sum + report.variantsAdded, 0)).toBe(3);
    for (const [index, blog] of blogs.entries()) {
      const banner = bannerOf((await api.as(admin).get(`/blogs/${blog.slug}`)).body.blog);
      expect(banner.variants).toEqual(made[index]);
      await expectServedVariants(banner);
    }
    expect(readdirSync(directory()).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(reportOf((await backfill()).stdout)).toEqual({ blogsChecked: 0, variantsAdded: 0, failed: [] });
  });

  it('refuses any argument (a --dry-run would run for real) and keeps stdout for its one JSON line', async () => {
    const blog = await createBlog(ctx.app, admin, { banner: await makeImage('png', 700, 300) });
    await makeOlder(blog._id);

    const refused = await backfill({}, ['--dry-run']);

    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      'banners:backfill: takes no arguments, and runs for real each time (docs/failure-behaviour.md)',
    );
    expect(bannerOf((await api.as(admin).get(`/blogs/${blog.slug}`)).body.blog).variants).toEqual([]);
    // its log lines, at any level, go to stderr: a caller parses stdout as the report
    const ran = await backfill({ LOG_LEVEL: 'debug' });
    expect(ran.code).toBe(0);
    expect(ran.stdout.trim().split('\n')).toHaveLength(1);
    expect(reportOf(ran.stdout)).toMatchObject({ variantsAdded: 1 });
  });

  it('on Cloudinary gives them the transformation URLs they would have had, without uploading anything', async () => {
    const { app } = ctx.buildApp(cloudinaryEnv(cloud, 'backfill'));
    const blog = await createBlog(app, admin, { banner: await makeImage('png', 700, 300) });
    const { variants } = bannerOf(blog);
    await makeOlder(blog._id);
    const uploadsBefore = cloud.uploads.length;

    const result = await backfill(cloudinaryEnv(cloud, 'backfill'));

    expect(result.code).toBe(0);
    expect(reportOf(result.stdout)).toMatchObject({ variantsAdded: 1, failed: [] });
    expect(cloud.uploads.length).toBe(uploadsBefore);
    expect(bannerOf((await api.as(admin).get(`/blogs/${blog.slug}`)).body.blog).variants).toEqual(variants);
  });
});
