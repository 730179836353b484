/** Picks the banner storage the configuration asks for. */
import type { Config } from '../../config';
import type { BannerStorage } from './banner-storage';
import { createCloudinaryStorage } from './cloudinary-storage';
import { createLocalStorage } from './local-storage';

export function createBannerStorage(storage: Config['storage']): BannerStorage {
  return storage.cloudinary
    ? createCloudinaryStorage(storage.cloudinary, { saveTimeoutMs: storage.saveTimeoutMs })
    : createLocalStorage(storage.uploadsDir, { saveTimeoutMs: storage.saveTimeoutMs });
}

export {
  StorageError,
  type BannerStorage,
  type ListedFile,
  type StoredBanner,
  type StoredFile,
} from './banner-storage';
export { LOCAL_BANNERS_URL_PATH, localBannersDirectory } from './local-storage';
