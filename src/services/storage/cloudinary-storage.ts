/**
 * Banners on Cloudinary through its official SDK. Credentials go with every call rather than into the
 * SDK's process-wide configuration, so two apps in one process (tests) can use different accounts.
 *
 * Every upload has an overall deadline (STORAGE_SAVE_TIMEOUT_MS): the SDK's own timeout is one of
 * socket inactivity, which an answer trickling a byte at a time never reaches. Past the deadline the
 * upload's sockets are destroyed, and since the API chose the file's public_id, the file is deleted
 * in case Cloudinary stored it anyway (now, and once more later for an upload that lands late).
 *
 * The variants are not uploads but transformation URLs of the one upload (`…/image/upload/c_limit,f_webp,w_640/
 * v<version>/<public_id>`): Cloudinary makes each on its first request, and deletes them with the upload.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { UploadApiResponse } from 'cloudinary';
import type { CloudinaryConfig } from '../../config';
import type { BannerVariant } from '../../schemas/blog';
import { variantSizes } from '../banner-image';
import {
  StorageError,
  type BannerStorage,
  type BannerUpload,
  type ListedFile,
  type StoredBanner,
  type StoredFile,
} from './banner-storage';

/**
 * The SDK, loaded when a Cloudinary storage is made rather than with this module: loading it reads
 * CLOUDINARY_URL from the environment, and a malformed one threw there, before the configuration's own
 * check could name the variable, in a crash whose stack trace quoted the whole URL, secret and all.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose (above)
const loadSdk = () => (require('cloudinary') as typeof import('cloudinary')).v2;

/** Deadline of a deletion or a page of the listing. */
const CALL_TIMEOUT_MS = 15_000;
const LIST_PAGE_SIZE = 500;
const LIST_MAX_PAGES = 200;

export function createCloudinaryStorage(
  settings: CloudinaryConfig,
  { saveTimeoutMs = 15_000 }: { saveTimeoutMs?: number } = {},
): BannerStorage {
  const cloudinary = loadSdk();
  // The SDK picks http or https once, when it is first loaded; a plain-http API base (a proxy, or the
  // server of a test) therefore needs an http agent of its own.
  const plainHttp = settings.uploadPrefix?.startsWith('http:') ?? false;
  const newAgent = () => (plainHttp ? new http.Agent({ keepAlive: false }) : new https.Agent({ keepAlive: false }));
  const credentials = {
    cloud_name: settings.cloudName,
    api_key: settings.apiKey,
    api_secret: settings.apiSecret,
    ...(settings.uploadPrefix ? { upload_prefix: settings.uploadPrefix } : {}),
  };

  /** The variants as URLs of the upload `publicId` (of `version`, so a replaced file is never served from a cache). */
  function variantsOf(publicId: string, version: string | undefined, width: number, height: number): BannerVariant[] {
    return variantSizes(width, height).map((size) => ({
      url: cloudinary.url(publicId, {
        cloud_name: settings.cloudName,
        secure: true,
        ...(version ? { version } : {}),
        transformation: [{ width: size.width, crop: 'limit', fetch_format: 'webp' }],
        urlAnalytics: false,
      }),
      ...size,
      format: 'webp',
    }));
  }

  async function remove(key: string): Promise<void> {
    let result: { result?: string };
    try {
      // the SDK's types omit the options every call takes (credentials, agent, timeout)
      const transport = { ...credentials, ...(plainHttp ? { agent: newAgent() } : {}), timeout: CALL_TIMEOUT_MS };
      result = await cloudinary.uploader.destroy(key, { ...transport, resource_type: 'image', invalidate: true });
    } catch (error) {
      throw new StorageError('Cloudinary deletion failed', { cause: error });
    }
    // "not found" means it is already gone, which is what we wanted
    if (result?.result !== 'ok' && result?.result !== 'not found') {
      throw new StorageError(`Cloudinary deletion answered ${JSON.stringify(result)}`);
    }
  }

  return {
    kind: `Cloudinary (cloud ${settings.cloudName}, folder ${settings.folder})`,

    save({ data, width, height }: BannerUpload): Promise<StoredFile & { variants: BannerVariant[] }> {
      const name = randomBytes(12).toString('hex');
      const publicId = settings.folder ? `${settings.folder}/${name}` : name;
      const agent = newAgent();
      return new Promise<StoredFile & { variants: BannerVariant[] }>((resolve, reject) => {
        let settled = false;
        const timer = setTimeout(() => {
          if (settled) return;
          settled = true;
          agent.destroy(); // aborts the request, whatever state it is in
          reject(new StorageError(`Cloudinary upload did not finish within ${saveTimeoutMs} ms`));
          // it may still have been stored: remove it now, and again once a late upload would have landed
          const cleanUp = () => remove(publicId).catch(() => undefined);
          void cleanUp();
          setTimeout(cleanUp, saveTimeoutMs).unref();
        }, saveTimeoutMs);
        const stream = cloudinary.uploader.upload_stream(
          {
            ...credentials,
            agent,
            public_id: name,
            folder: settings.folder,
            overwrite: false,
            resource_type: 'image',
            timeout: saveTimeoutMs,
          },
          (error, result?: UploadApiResponse) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            agent.destroy();
            if (error || !result?.secure_url || !result.public_id) {
              reject(new StorageError('Cloudinary upload failed', { cause: error ?? result }));
              return;
            }
            resolve({
              url: result.secure_url,
              key: result.public_id,
              variants: variantsOf(result.public_id, result.version?.toString(), width, height),
            });
          },
        );
        stream.end(data);
      });
    },

    async addVariants({ key, url, width, height }: StoredBanner) {
      return variantsOf(key, /\/v(\d+)\//.exec(url)?.[1], width, height);
    },

    remove,

    async list(): Promise<ListedFile[]> {
      const files: ListedFile[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < LIST_MAX_PAGES; page++) {
        let answer: { resources?: Array<{ public_id: string; created_at: string }>; next_cursor?: string };
        try {
          answer = await cloudinary.api.resources({
            ...credentials,
            ...(plainHttp ? { agent: newAgent() } : {}),
            type: 'upload',
            resource_type: 'image',
            prefix: settings.folder ? `${settings.folder}/` : undefined,
            max_results: LIST_PAGE_SIZE,
            timeout: CALL_TIMEOUT_MS,
            ...(cursor ? { next_cursor: cursor } : {}),
          });
        } catch (error) {
          throw new StorageError('Cloudinary listing failed', { cause: error });
        }
        for (const resource of answer.resources ?? [])
          files.push({ key: resource.public_id, storedAt: new Date(resource.created_at) });
        cursor = answer.next_cursor;
        if (!cursor) break;
      }
      return files;
    },

    // Not asked at start: a call there would cost an Admin API request per start, and Cloudinary down then
    // says nothing of it at the first upload, which answers 502 and logs Cloudinary's reason anyway.
    async check(): Promise<void> {},
  };
}
