/**
 * Banners as files under a local folder, served by the API at /uploads/banners/<file>.
 * For development and single-instance use: several instances do not share a disk.
 *
 * A banner's variants are files beside it, named after it: `<key>.<width>w.webp`
 * (`6b03…e1.png.640w.webp`). So `remove(key)` finds them without a record, and the orphan sweep keeps
 * a variant exactly as long as a blog names its banner (`ListedFile.of`).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderVariants, type RenderedVariant } from '../banner-image';
import type { BannerVariant } from '../../schemas/blog';
import {
  StorageError,
  type BannerStorage,
  type BannerUpload,
  type ListedFile,
  type StoredBanner,
} from './banner-storage';

/** URL path under which the app serves the folder (see app.ts). */
export const LOCAL_BANNERS_URL_PATH = '/uploads/banners';

/** File names are generated here, never taken from the client: 24 hex digits and the detected extension. */
const SAFE_NAME = /^[a-f0-9]{24}\.(png|jpeg|webp)$/;
/** A variant: its banner's name, its width; while the backfill writes it, a temporary suffix. */
const VARIANT_NAME = /^([a-f0-9]{24}\.(?:png|jpeg|webp))\.\d{1,5}w\.webp(?:\.[a-f0-9]{8}\.tmp)?$/;

const variantName = (key: string, width: number) => `${key}.${width}w.webp`;

/** The folder banners are kept in, under the configured uploads folder. */
export const localBannersDirectory = (uploadsDir: string) => path.resolve(uploadsDir, 'banners');

/**
 * mkdir -p that ends: the folder, and the missing folders above it, each made once. Node's own recursive
 * mkdir never settles where the kernel answers "no such file" for a folder whose parent exists (under
 * /proc), and spins a thread of its pool at full CPU meanwhile: the start-up check and every upload hung.
 */
async function makeDirectory(directory: string): Promise<void> {
  try {
    await mkdir(directory);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return assertDirectory(directory, error);
    const parent = path.dirname(directory);
    if (code !== 'ENOENT' || parent === directory) throw error;
    await makeDirectory(parent);
    await mkdir(directory).catch((again: NodeJS.ErrnoException) => {
      if (again.code !== 'EEXIST') throw again;
      return assertDirectory(directory, again);
    });
  }
}

/** What is there already must be a folder: a file of that name is the `EEXIST` it is. */
async function assertDirectory(directory: string, exists: unknown): Promise<void> {
  if (!(await stat(directory)).isDirectory()) throw exists;
}

export function createLocalStorage(
  uploadsDir: string,
  { saveTimeoutMs = 15_000 }: { saveTimeoutMs?: number } = {},
): BannerStorage {
  const directory = localBannersDirectory(uploadsDir);
  const fileOf = (name: string) => path.join(directory, name);

  /** Writes a file that must not exist yet, noting it in `written` so a failure can take it back. */
  async function writeNew(name: string, data: Buffer, signal: AbortSignal, written: string[]) {
    // flag "wx": never overwrite, even in the unlikely event of a name collision
    const writing = writeFile(fileOf(name), data, { flag: 'wx', signal });
    written.push(name);
    await writing.catch((error: NodeJS.ErrnoException) => {
      if (error?.code === 'EEXIST') written.pop(); // someone else's file: never ours to delete
      throw error;
    });
  }

  /** A full disk or an aborted write leaves partial files of ours behind: never keep half a banner. */
  async function takeBack(written: string[]) {
    await Promise.all(written.map((name) => rm(fileOf(name), { force: true }).catch(() => undefined)));
  }

  const failure = (what: string, deadline: AbortSignal, error: unknown) =>
    new StorageError(`${what} ${deadline.aborted ? `did not finish within ${saveTimeoutMs} ms` : 'failed'}`, {
      cause: error,
    });

  const describe = (bannerUrl: string, key: string, variants: RenderedVariant[]): BannerVariant[] =>
    variants.map(({ width, height, format }) => ({
      url: bannerUrl.replace(/[^/]+$/, variantName(key, width)),
      width,
      height,
      format,
    }));

  return {
    kind: `local folder ${directory}`,

    async save({ data, extension, baseUrl, width }: BannerUpload) {
      const key = `${randomBytes(12).toString('hex')}.${extension}`;
      // A disk that hangs (a stuck network mount) or a long queue for the CPU must not hold the request.
      const deadline = AbortSignal.timeout(saveTimeoutMs);
      const written: string[] = [];
      try {
        // rendered before anything is written: a deadline passed in the queue leaves nothing to take back
        const variants = await renderVariants(data, width, deadline);
        await makeDirectory(directory);
        await writeNew(key, data, deadline, written);
        for (const variant of variants)
          await writeNew(variantName(key, variant.width), variant.data, deadline, written);
        const url = `${baseUrl}${LOCAL_BANNERS_URL_PATH}/${key}`;
        return { url, key, variants: describe(url, key, variants) };
      } catch (error) {
        await takeBack(written);
        throw failure('Storing the banner on disk', deadline, error);
      }
    },

    async addVariants(banner: StoredBanner) {
      if (!SAFE_NAME.test(banner.key)) throw new StorageError(`Not a banner file name: ${banner.key}`);
      const deadline = AbortSignal.timeout(saveTimeoutMs);
      const written: string[] = [];
      try {
        const variants = await renderVariants(
          await readFile(fileOf(banner.key), { signal: deadline }),
          banner.width,
          deadline,
        );
        // each written aside, then renamed over its name: a second run at the same time (or a reader)
        // sees a whole file or none, never half of one
        for (const variant of variants) {
          const final = variantName(banner.key, variant.width);
          const temporary = `${final}.${randomBytes(4).toString('hex')}.tmp`;
          await writeNew(temporary, variant.data, deadline, written);
          await rename(fileOf(temporary), fileOf(final));
          written.pop();
        }
        return describe(banner.url, banner.key, variants);
      } catch (error) {
        await takeBack(written);
        throw failure(`Making the variants of ${banner.key}`, deadline, error);
      }
    },

    async remove(key: string): Promise<void> {
      // The key comes from our own records, but a path is only ever built from a name of our own shape.
      if (!SAFE_NAME.test(key) && !VARIANT_NAME.test(key))
        throw new StorageError(`Refusing to delete an unexpected file name: ${key}`);
      try {
        const variants = SAFE_NAME.test(key)
          ? (await readdir(directory).catch(() => [])).filter((name) => VARIANT_NAME.exec(name)?.[1] === key)
          : [];
        await Promise.all(variants.map((name) => rm(fileOf(name), { force: true })));
        await rm(fileOf(key), { force: true });
      } catch (error) {
        throw new StorageError('Could not delete the banner from disk', { cause: error });
      }
    },

    async list(): Promise<ListedFile[]> {
      let names: string[];
      try {
        names = await readdir(directory);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw new StorageError('Could not list the banner folder', { cause: error });
      }
      const files: ListedFile[] = [];
      for (const name of names) {
        const of = VARIANT_NAME.exec(name)?.[1];
        if (!of && !SAFE_NAME.test(name)) continue;
        const info = await stat(fileOf(name)).catch(() => undefined);
        if (info?.isFile()) files.push({ key: name, storedAt: info.mtime, ...(of ? { of } : {}) });
      }
      return files;
    },

    async check(): Promise<void> {
      try {
        await makeDirectory(directory);
        await access(directory, constants.W_OK);
      } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        throw new StorageError(`the folder ${directory} cannot be written (${reason})`, { cause: error });
      }
    },
  };
}
