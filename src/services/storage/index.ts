/** Picks the banner storage the configuration asks for. */
import type { Config } from '../../config';
import type { Logger } from '../../lib/logger';
import type { BannerStorage } from './banner-storage';
import { createCloudinaryStorage } from './cloudinary-storage';
import { createLocalStorage } from './local-storage';

export function createBannerStorage(storage: Config['storage']): BannerStorage {
  return storage.cloudinary
    ? createCloudinaryStorage(storage.cloudinary, { saveTimeoutMs: storage.saveTimeoutMs })
    : createLocalStorage(storage.uploadsDir, { saveTimeoutMs: storage.saveTimeoutMs });
}

/**
 * Deletes a banner whose record is already gone or never came to be: a failure only leaves an orphan file
 * (the sweep takes it later), so it is logged, not thrown.
 */
export async function discardBanner(storage: BannerStorage, logger: Logger, key: string): Promise<void> {
  try {
    await storage.remove(key);
  } catch (error) {
    logger.error('could not delete a banner file; it is orphaned', {
      key,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

export {
  StorageError,
  type BannerStorage,
  type ListedFile,
  type StoredBanner,
  type StoredFile,
} from './banner-storage';
export { LOCAL_BANNERS_URL_PATH, localBannersDirectory } from './local-storage';
