/**
 * Banners as files under a local folder, served by the API at /uploads/banners/<file>.
 * For development and single-instance use: several instances do not share a disk.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  StorageError,
  type BannerStorage,
  type BannerUpload,
  type ListedFile,
  type StoredFile,
} from './banner-storage';

/** URL path under which the app serves the folder (see app.ts). */
export const LOCAL_BANNERS_URL_PATH = '/uploads/banners';

/** File names are generated here, never taken from the client: 24 hex digits and the detected extension. */
const SAFE_NAME = /^[a-f0-9]{24}\.(png|jpeg|webp)$/;

/** The folder banners are kept in, under the configured uploads folder. */
export const localBannersDirectory = (uploadsDir: string) => path.resolve(uploadsDir, 'banners');

export function createLocalStorage(
  uploadsDir: string,
  { saveTimeoutMs = 15_000 }: { saveTimeoutMs?: number } = {},
): BannerStorage {
  const directory = localBannersDirectory(uploadsDir);

  return {
    kind: `local folder ${directory}`,

    async save({ data, extension, baseUrl }: BannerUpload): Promise<StoredFile> {
      const name = `${randomBytes(12).toString('hex')}.${extension}`;
      const file = path.join(directory, name);
      // A disk that hangs (a stuck network mount) must not hold the request: the write is aborted.
      const deadline = AbortSignal.timeout(saveTimeoutMs);
      let created = false;
      try {
        await mkdir(directory, { recursive: true });
        // flag "wx": never overwrite, even in the unlikely event of a name collision
        const writing = writeFile(file, data, { flag: 'wx', signal: deadline });
        created = true;
        await writing;
      } catch (error) {
        // a full disk or an aborted write leaves a partial file of ours behind: never keep half a banner
        const exists = (error as NodeJS.ErrnoException)?.code === 'EEXIST';
        if (created && !exists) await rm(file, { force: true }).catch(() => undefined);
        const reason = deadline.aborted ? `did not finish within ${saveTimeoutMs} ms` : 'failed';
        throw new StorageError(`Storing the banner on disk ${reason}`, { cause: error });
      }
      return { url: `${baseUrl}${LOCAL_BANNERS_URL_PATH}/${name}`, key: name };
    },

    async remove(key: string): Promise<void> {
      // The key comes from our own records, but a path is only ever built from a name of our own shape.
      if (!SAFE_NAME.test(key)) throw new StorageError(`Refusing to delete an unexpected file name: ${key}`);
      try {
        await rm(path.join(directory, key), { force: true });
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
      for (const name of names.filter((candidate) => SAFE_NAME.test(candidate))) {
        const info = await stat(path.join(directory, name)).catch(() => undefined);
        if (info?.isFile()) files.push({ key: name, storedAt: info.mtime });
      }
      return files;
    },
  };
}
