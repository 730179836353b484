/**
 * Banner storage never holds a request past STORAGE_SAVE_TIMEOUT_MS, and what a failed or abandoned
 * upload leaves behind is removed: Cloudinary (the real SDK against tests/helpers/fake-cloudinary.ts)
 * hanging, trickling its answer, or succeeding after the API gave up; and the orphan sweep of both storages.
 * While the storage is slow, uploads wait their turn to be read into memory (middlewares/upload.ts).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app';
import { createMetrics } from '../src/lib/metrics';
import { BODIES_IN_MEMORY } from '../src/middlewares/upload';
import { BlogModel } from '../src/models/blog.model';
import { createReconciliationService } from '../src/services/reconciliation.service';
import { createBannerStorage, type BannerStorage } from '../src/services/storage';
import { createLocalStorage, localBannersDirectory } from '../src/services/storage/local-storage';
import { createBlog, postBlog } from './helpers/blogs';
import { cloudinaryEnv, startFakeCloudinary, type FakeCloudinary } from './helpers/fake-cloudinary';
import { makeImage } from './helpers/images';
import { captureLog } from './helpers/log-capture';
import { useTestApp } from './helpers/test-app';
import { agent } from './helpers/agent';

let cloud: FakeCloudinary;
const DEADLINE_MS = '800';

beforeAll(async () => {
  cloud = await startFakeCloudinary();
});
const ctx = useTestApp(() => ({
  env: { ...cloudinaryEnv(cloud, 'deadline-banners'), STORAGE_SAVE_TIMEOUT_MS: DEADLINE_MS },
}));
const admin = ctx.signedInAdmin();
afterEach(() => cloud.uploadMode('normal'));
afterAll(() => cloud.close());

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

/** Local storage whose saves wait until the test lets them go, counting how many wait at once. */
function heldStorage(uploadsDir: string) {
  const local = createLocalStorage(uploadsDir);
  const held: Array<() => void> = [];
  let holding = true;
  const counts = { started: 0, waiting: 0, mostWaiting: 0 };
  const storage: BannerStorage = {
    ...local,
    async save(upload) {
      counts.started += 1;
      if (holding) {
        counts.waiting += 1;
        counts.mostWaiting = Math.max(counts.mostWaiting, counts.waiting);
        await new Promise<void>((resolve) => held.push(resolve));
        counts.waiting -= 1;
      }
      return local.save(upload);
    },
  };
  /** Lets the waiting saves go, and every later one straight through. */
  const letGo = () => {
    holding = false;
    for (const release of held.splice(0)) release();
  };
  return { storage, counts, letGo };
}

describe('uploads while the storage is slow', () => {
  // a folder of their own: the local sweep below counts what the context's folder holds
  let heldDir: string;
  beforeAll(() => {
    heldDir = mkdtempSync(path.join(tmpdir(), 'held-banners-'));
  });
  afterAll(() => rmSync(heldDir, { recursive: true, force: true }));

  it(`reads at most ${BODIES_IN_MEMORY} bodies at once; the others wait their turn, then succeed`, async () => {
    const { storage, counts, letGo } = heldStorage(heldDir);
    const metrics = createMetrics();
    const app = createApp({ config: ctx.config, logger: ctx.logger, storage, metrics });
    const inFlight = async () => (await metrics.http.inFlight.get()).values[0]?.value ?? 0;
    const banner = await makeImage('png', 4, 4);
    const total = BODIES_IN_MEMORY + 2;

    const answers = Promise.all(
      Array.from({ length: total }, (_, i) => postBlog(app, admin, { title: `Queued upload ${i}`, banner })),
    );
    const settled = await eventually(async () => (await inFlight()) === total && counts.started === BODIES_IN_MEMORY);
    const startedWhileFull = counts.started;
    letGo();
    const statuses = (await answers).map((response) => response.status);

    expect(settled).toBe(true);
    expect(startedWhileFull).toBe(BODIES_IN_MEMORY);
    expect(counts.mostWaiting).toBe(BODIES_IN_MEMORY);
    expect(statuses).toEqual(Array(total).fill(201));
  });

  it('gives the places of clients that left while waiting to the next in line', async () => {
    const { storage, counts, letGo } = heldStorage(heldDir);
    const app = createApp({ config: ctx.config, logger: ctx.logger, storage });
    const banner = await makeImage('png', 4, 4);
    const holding = Array.from({ length: BODIES_IN_MEMORY }, (_, i) =>
      postBlog(app, admin, { title: `Holding ${i}`, banner }),
    );
    expect(await eventually(() => counts.started === BODIES_IN_MEMORY)).toBe(true);
    // as many clients as there are places give up while in line: were their places kept, nothing would pass
    const leaving = Array.from({ length: BODIES_IN_MEMORY }, () =>
      agent(app)
        .as(admin)
        .post('/blogs/')
        .field('title', 'Left the line')
        .field('content', '<p>Gone</p>')
        .attach('banner_image', banner, 'banner.png')
        .timeout(300),
    );
    for (const gone of await Promise.allSettled(leaving)) expect(gone.status).toBe('rejected');

    letGo();
    const statuses = (await Promise.all(holding)).map((response) => response.status);
    const after = await postBlog(app, admin, { title: 'After the ones that left', banner });

    expect(statuses).toEqual(Array(BODIES_IN_MEMORY).fill(201));
    expect(after.status).toBe(201);
    expect(await BlogModel.countDocuments({ title: 'Left the line' })).toBe(0);
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
      width: 64,
      height: 48,
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
    const local = ctx.buildApp({ CLOUDINARY_URL: '' });
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
    const keptVariant = `${keptKey}.64w.webp`; // kept as long as its banner is
    for (const name of [keptKey, keptVariant]) utimesSync(path.join(directory, name), twoHoursAgo, twoHoursAgo);

    const swept = await createReconciliationService({
      storage,
      logger: captureLog().logger,
      orphanMinAgeMs: 60 * 60_000,
    }).sweepOrphanBanners(60 * 60_000);

    expect(swept.removed).toEqual([orphan]);
    expect(readdirSync(directory).sort()).toEqual([fresh, keptKey, keptVariant, 'README.txt'].sort());
  });
});

describe('local storage in a folder the kernel will not let be made', () => {
  // under /proc, mkdir answers "no such file" though the parent exists: Node's recursive mkdir then never
  // settled, spinning at full CPU, and the start-up check and every upload hung with it (here: past the
  // test's timeout)
  (process.platform === 'linux' ? it : it.skip)(
    'fails its check and an upload at once, naming the reason',
    async () => {
      const storage = createLocalStorage('/proc/blog-api-uploads', { saveTimeoutMs: 60_000 });
      const data = await makeImage('png', 800, 400);

      await expect(storage.check()).rejects.toThrow(/cannot be written \(ENOENT\)/);
      await expect(
        storage.save({ data, extension: 'png', mimeType: 'image/png', width: 800, height: 400, baseUrl: 'http://x' }),
      ).rejects.toThrow(/Storing the banner on disk/);
    },
    10_000,
  );

  it("fails its check where a file stands in the folder's place", async () => {
    const uploadsDir = mkdtempSync(path.join(tmpdir(), 'blog-uploads-file-'));
    try {
      writeFileSync(path.join(uploadsDir, 'banners'), '');
      await expect(createLocalStorage(uploadsDir).check()).rejects.toThrow(/banners cannot be written \(EEXIST\)/);
    } finally {
      rmSync(uploadsDir, { recursive: true, force: true });
    }
  });
});
