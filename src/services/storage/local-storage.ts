/**
 * Banners as files under a local folder, served by the API at /uploads/banners/<file>.
 * For development and single-instance use: several instances do not share a disk.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StorageError, type BannerStorage, type BannerUpload, type StoredFile } from './banner-storage';

/** URL path under which the app serves the folder (see app.ts). */
export const LOCAL_BANNERS_URL_PATH = '/uploads/banners';

/** File names are generated here, never taken from the client: 24 hex digits and the detected extension. */
const SAFE_NAME = /^[a-f0-9]{24}\.(png|jpeg|webp)$/;

/** The folder banners are kept in, under the configured uploads folder. */
export const localBannersDirectory = (uploadsDir: string) => path.resolve(uploadsDir, 'banners');

export function createLocalStorage(uploadsDir: string): BannerStorage {
  const directory = localBannersDirectory(uploadsDir);

  return {
    kind: `local folder ${directory}`,

    async save({ data, extension, baseUrl }: BannerUpload): Promise<StoredFile> {
      const name = `${randomBytes(12).toString('hex')}.${extension}`;
      try {
        await mkdir(directory, { recursive: true });
        // flag "wx": never overwrite, even in the unlikely event of a name collision
        await writeFile(path.join(directory, name), data, { flag: 'wx' });
      } catch (error) {
        throw new StorageError('Could not store the banner on disk', { cause: error });
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
  };
}
