/**
 * The Cloudinary path, for real: the official SDK, configured as in production, talks to an HTTP server
 * in this test (tests/helpers/fake-cloudinary.ts) that checks its signed multipart calls and answers as Cloudinary.
 */
import { createCursorCodec } from '../src/lib/list-cursor';
import { LocalAuthChanges } from '../src/lib/auth-changes';
import { createAccountService } from '../src/services/account.service';
import { createBlogService } from '../src/services/blog.service';
import { createBannerStorage } from '../src/services/storage';
import { BlogModel } from '../src/models/blog.model';
import { createBlog, postBlog } from './helpers/blogs';
import { cloudinaryEnv, startFakeCloudinary, type FakeCloudinary } from './helpers/fake-cloudinary';
import { makeImage } from './helpers/images';
import { useTestApp } from './helpers/test-app';

let cloud: FakeCloudinary;
beforeAll(async () => {
  cloud = await startFakeCloudinary();
});
const ctx = useTestApp(() => ({ env: cloudinaryEnv(cloud, 'test-banners') }));
const api = ctx.api;
const admin = ctx.signedInAdmin();
afterEach(() => cloud.failWith(0));
afterAll(() => cloud.close());

describe('banners on Cloudinary', () => {
  it('uploads the banner once, with a valid signature, into the folder; its variants are transformation URLs of it', async () => {
    const uploadsBefore = cloud.uploads.length;
    const banner = await makeImage('webp', 700, 350);
    const blog = await createBlog(ctx.app, admin, { banner, filename: 'b.webp' });

    expect(cloud.uploads.length).toBe(uploadsBefore + 1);
    const upload = cloud.uploads.at(-1)!;
    // what goes up is the banner re-encoded from its pixels (no metadata), not the uploaded bytes
    expect(upload).toMatchObject({ folder: 'test-banners', bytes: expect.any(Number), format: 'webp' });
    expect(upload.bytes).toBeGreaterThan(0);
    const base = `https://res.cloudinary.com/${cloud.cloudName}/image/upload`;
    const version = /\/v(\d+)\//.exec((blog.banner as { url: string }).url)?.[1];
    const variant = (width: number, height: number) => ({
      url: `${base}/c_limit,f_webp,w_${width}/v${version}/${upload.publicId}`,
      width,
      height,
      format: 'webp',
    });
    expect(blog.banner).toEqual({
      url: `${base}/v${version}/${upload.publicId}.webp`,
      width: 700,
      height: 350,
      variants: [variant(320, 160), variant(640, 320), variant(700, 350)],
    });
  });

  it('deletes the banner from Cloudinary with the blog', async () => {
    const blog = await createBlog(ctx.app, admin);
    const { publicId } = cloud.uploads.at(-1)!;

    await api.as(admin).delete(`/blogs/${blog._id}?permanent=true`).expect(204);

    expect(cloud.destroyed).toContain(publicId);
    expect(cloud.stored.has(publicId)).toBe(false);
  });

  it('replaces the banner: the new one is uploaded and the old one destroyed', async () => {
    const blog = await createBlog(ctx.app, admin);
    const old = cloud.uploads.at(-1)!.publicId;

    const response = await api
      .as(admin)
      .put(`/blogs/${blog._id}`)
      .attach('banner_image', await makeImage('jpeg', 30, 20), 'new.jpg');

    expect(response.status).toBe(200);
    const fresh = cloud.uploads.at(-1)!.publicId;
    expect(fresh).not.toBe(old);
    expect(response.body.blog.banner.url).toContain(fresh);
    expect(cloud.destroyed).toContain(old);
    expect(cloud.stored.has(fresh)).toBe(true);
  });

  it('answers 502 ServerError when Cloudinary fails, and stores no blog', async () => {
    const before = await BlogModel.countDocuments();
    cloud.failWith(500);

    const response = await postBlog(ctx.app, admin, { title: 'Never stored' });

    expect(response.status).toBe(502);
    expect(response.body).toEqual({ code: 'ServerError', message: expect.any(String) });
    expect(response.body.message).not.toMatch(/Simulated|cloudinary\.com|api_key/);
    expect(await BlogModel.countDocuments()).toBe(before);
  });

  it('answers 502 when Cloudinary cannot be reached at all', async () => {
    const { app } = ctx.buildApp({
      CLOUDINARY_URL: `cloudinary://${cloud.apiKey}:${cloud.apiSecret}@${cloud.cloudName}?upload_prefix=http://127.0.0.1:1`,
    });
    const response = await postBlog(app, admin, { title: 'Unreachable' });

    expect(response.status).toBe(502);
    expect(await BlogModel.countDocuments({ title: 'Unreachable' })).toBe(0);
  });

  it('answers 502 when Cloudinary refuses the credentials (a wrong secret signs wrongly)', async () => {
    const { app } = ctx.buildApp({
      CLOUDINARY_URL: `cloudinary://${cloud.apiKey}:wrong-secret@${cloud.cloudName}?upload_prefix=${cloud.url}`,
    });
    const response = await postBlog(app, admin, { title: 'Badly signed' });

    expect(response.status).toBe(502);
    expect(await BlogModel.countDocuments({ title: 'Badly signed' })).toBe(0);
  });

  it('takes the uploaded banner back when the blog record cannot be written', async () => {
    const blogs = createBlogService({
      storage: createBannerStorage(ctx.config.storage),
      cursors: createCursorCodec(ctx.config.jwt.accessSecret),
      logger: ctx.logger,
      accounts: createAccountService({ authChanges: new LocalAuthChanges() }),
    });
    const uploadsBefore = cloud.uploads.length;

    // a status the schema refuses gets past no validator on the HTTP path; here it makes the insert fail after the upload
    const attempt = blogs.createBlog(
      { _id: admin.user._id as never, role: 'admin' },
      {
        title: 'Fails after upload',
        content: '<p>x</p>',
        status: 'archived' as never,
        banner: {
          data: await makeImage('png'),
          image: { extension: 'png', mimeType: 'image/png', width: 64, height: 48 },
          baseUrl: 'http://x',
        },
      },
    );

    await expect(attempt).rejects.toThrow(/status/);
    expect(cloud.uploads.length).toBe(uploadsBefore + 1);
    const orphan = cloud.uploads.at(-1)!.publicId;
    expect(cloud.destroyed).toContain(orphan);
    expect(cloud.stored.has(orphan)).toBe(false);
  });
});
