/**
 * Banners on Cloudinary through its official SDK. Credentials go with every call rather than into the
 * SDK's process-wide configuration, so two apps in one process (tests) can use different accounts.
 */
import http from 'node:http';
import { v2 as cloudinary, type UploadApiResponse } from 'cloudinary';
import type { CloudinaryConfig } from '../../config';
import { StorageError, type BannerStorage, type BannerUpload, type StoredFile } from './banner-storage';

const UPLOAD_TIMEOUT_MS = 60_000;

export function createCloudinaryStorage(settings: CloudinaryConfig): BannerStorage {
  const credentials = {
    cloud_name: settings.cloudName,
    api_key: settings.apiKey,
    api_secret: settings.apiSecret,
    ...(settings.uploadPrefix ? { upload_prefix: settings.uploadPrefix } : {}),
    // The SDK picks http or https once, when it is first loaded; a plain-http API base (a proxy, or the
    // server of a test) therefore needs an http agent of its own.
    ...(settings.uploadPrefix?.startsWith('http:') ? { agent: new http.Agent({ keepAlive: false }) } : {}),
  };

  return {
    kind: `Cloudinary (cloud ${settings.cloudName}, folder ${settings.folder})`,

    save({ data }: BannerUpload): Promise<StoredFile> {
      return new Promise((resolve, reject) => {
        const stream = cloudinary.uploader.upload_stream(
          { ...credentials, folder: settings.folder, resource_type: 'image', timeout: UPLOAD_TIMEOUT_MS },
          (error, result?: UploadApiResponse) => {
            if (error || !result?.secure_url || !result.public_id) {
              reject(new StorageError('Cloudinary upload failed', { cause: error ?? result }));
              return;
            }
            resolve({ url: result.secure_url, key: result.public_id });
          },
        );
        stream.end(data);
      });
    },

    async remove(key: string): Promise<void> {
      let result: { result?: string };
      try {
        result = await cloudinary.uploader.destroy(key, { ...credentials, resource_type: 'image', invalidate: true });
      } catch (error) {
        throw new StorageError('Cloudinary deletion failed', { cause: error });
      }
      // "not found" means it is already gone, which is what we wanted
      if (result?.result !== 'ok' && result?.result !== 'not found') {
        throw new StorageError(`Cloudinary deletion answered ${JSON.stringify(result)}`);
      }
    },
  };
}
