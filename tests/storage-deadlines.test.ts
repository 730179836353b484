/**
 * Banner storage never holds a request past STORAGE_SAVE_TIMEOUT_MS, and what a failed or abandoned
 * upload leaves behind is removed: Cloudinary (the real SDK against tests/helpers/fake-cloudinary.ts)
 * hanging, trickling its answer, or succeeding after the API gave up; and the orphan sweep of both storages.
 */
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BlogModel } from '../src/models/blog.model';
import { createReconciliationService } from '../src/services/reconciliation.service';
import { createBannerStorage } from '../src/services/storage';
import { createLocalStorage, localBannersDirectory } from '../src/services/storage/local-storage';
import { createBlog, postBlog } from './helpers/blogs';
import { startFakeCloudinary, type FakeCloudinary } from './helpers/fake-cloudinary';
import { makeImage } from './helpers/images';
import { captureLog } from './helpers/log-capture';
import { createTestContext, type TestContext } from './helpers/test-app';
import { registerAdmin, type SignedInUser } from './helpers/users';

let cloud: FakeCloudinary;
let ctx: TestContext;
let admin: SignedInUser;
const DEADLINE_MS = '800';

beforeAll(async () => {
  cloud = await startFakeCloudinary();
  ctx = await createTestContext({
    env: {
      CLOUDINARY_URL: `cloudinary://${cloud.apiKey}:${cloud.apiSecret}@${cloud.cloudName}`,
      CLOUDINARY_UPLOAD_PREFIX: cloud.url,
      CLOUDINARY_FOLDER: 'deadline-banners',
      STORAGE_SAVE_TIMEOUT_MS: DEADLINE_MS,
    },
  });
  admin = await registerAdmin(ctx.app);
});
afterEach(() => cloud.uploadMode('normal'));
afterAll(async () => {
  await ctx.close();
  await cloud.close();
});

async function eventually(probe: () => boolean | Promise<boolean>, limitMs = 15_000): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('Cloudinary upload deadline', () => {
  it.each([
    ['never answers', 'hang'],
    ['trickles its answer a byte at a time', 'trickle'],
  ] as const)('answers 502 when Cloudinary %s, and stores no blog', async (_case, mode) => {
    cloud.uploadMode(mode, 200);
    const title = `Storage ${mode}`;
    const response = await postBlog(ctx.app, admin, { title });

    expect(response.status).toBe(502);
    expect(response.body).toEqual({ code: 'ServerError', message: expect.any(String) });
    expect(await BlogModel.countDocuments({ title })).toBe(0);
  });

  it('removes a file whose upload succeeded after the API gave up (the API chose its public_id)', async () => {
    cloud.uploadMode('late', 1500);
    const uploadsBefore = cloud.uploads.length;
    const response = await postBlog(ctx.app, admin, { title: 'Late success' });
    expect(response.status).toBe(502);

    // Cloudinary stored it, only its answer was late: the API's clean-up deletes it by the id it chose
    expect(await eventually(() => cloud.uploads.length > uploadsBefore)).toBe(true);
    const late = cloud.uploads.at(-1)!.publicId;
    expect(late).toMatch(/^deadline-banners\/[a-f0-9]{24}$/);
    expect(await eventually(() => !cloud.stored.has(late))).toBe(true);
    expect(cloud.destroyed).toContain(late);
  });

  it('still uploads normally within the deadline', async () => {
    const blog = await createBlog(ctx.app, admin, { title: 'In time' });
    expect(blog.title).toBe('In time');
  });
});

describe('orphan banner sweep', () => {
  it('deletes Cloudinary files no blog names once old enough, and keeps the ones blogs name', async () => {
    const storage = createBannerStorage(ctx.config.storage);
    const kept = await createBlog(ctx.app, admin, { title: 'Keeps its banner' });
    const keptKey = (await BlogModel.findById(kept._id))!.banner!.key;
    const orphan = await storage.save({
      data: await makeImage('png'),
      extension: 'png',
      mimeType: 'image/png',
      baseUrl: 'http://x',
    });
    const log = captureLog();

    const young = await createReconciliationService({
      storage,
      logger: log.logger,
      orphanMinAgeMs: 60 * 60_000,
    }).sweepOrphanBanners(60 * 60_000);
    expect(young.removed).toEqual([]);
    expect(cloud.stored.has(orphan.key)).toBe(true);

    const swept = await createReconciliationService({
      storage,
      logger: log.logger,
      orphanMinAgeMs: 60 * 60_000,
    }).sweepOrphanBanners(0);
    expect(swept.removed).toContain(orphan.key);
    expect(swept.removed).not.toContain(keptKey);
    expect(cloud.stored.has(orphan.key)).toBe(false);
    expect(cloud.stored.has(keptKey)).toBe(true);
    expect(log.lines.join('\n')).toContain(`removed banner ${orphan.key}`);
  });

  it('deletes local files no blog names once older than the bound, and nothing else in the folder', async () => {
    const local = ctx.buildApp({ CLOUDINARY_URL: '', CLOUDINARY_UPLOAD_PREFIX: '' });
    const storage = createLocalStorage(local.config.storage.uploadsDir);
    const kept = await createBlog(local.app, admin, { title: 'Local keeper' });
    const keptKey = (await BlogModel.findById(kept._id))!.banner!.key;
    const directory = localBannersDirectory(local.config.storage.uploadsDir);
    mkdirSync(directory, { recursive: true });
    const orphan = 'abcdefabcdefabcdefabcdef.png';
    const fresh = 'bbbbbbbbbbbbbbbbbbbbbbbb.png';
    writeFileSync(path.join(directory, orphan), 'x');
    writeFileSync(path.join(directory, fresh), 'x');
    writeFileSync(path.join(directory, 'README.txt'), 'not ours');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60_000);
    utimesSync(path.join(directory, orphan), twoHoursAgo, twoHoursAgo);
    utimesSync(path.join(directory, keptKey), twoHoursAgo, twoHoursAgo);

    const swept = await createReconciliationService({
      storage,
      logger: captureLog().logger,
      orphanMinAgeMs: 60 * 60_000,
    }).sweepOrphanBanners(60 * 60_000);

    expect(swept.removed).toEqual([orphan]);
    expect(readdirSync(directory).sort()).toEqual([fresh, keptKey, 'README.txt'].sort());
  });
});
