/**
 * Where banner images live. Two implementations: Cloudinary (production, several instances) and a
 * local folder served by the API itself (development, no account needed). Both take an image that
 * has already been inspected (its type and size known) and give back a public URL and a key to delete it by,
 * with the banner's variants (narrower WebP copies): files beside it, or Cloudinary transformation URLs.
 */
import type { BannerVariant } from '../../schemas/blog';

export interface StoredFile {
  /** Absolute public URL of the file. */
  url: string;
  /** The storage's own name for the file; what `remove` takes (its variants go with it). */
  key: string;
}

/** A stored banner as its blog records it. */
export interface StoredBanner extends StoredFile {
  width: number;
  height: number;
}

export interface BannerUpload {
  data: Buffer;
  /** From the file's bytes, never from its name: png, jpeg or webp. */
  extension: string;
  mimeType: string;
  width: number;
  height: number;
  /** Absolute base URL of this API as the client reached it (local storage builds file URLs on it). */
  baseUrl: string;
}

export interface BannerStorage {
  /** Human-readable name for the log. */
  readonly kind: string;
  /** Stores the banner and its variants, all or nothing, within STORAGE_SAVE_TIMEOUT_MS. */
  save(upload: BannerUpload): Promise<StoredFile & { variants: BannerVariant[] }>;
  /**
   * The variants of a banner stored before they existed (`npm run banners:backfill`), made now; doing it
   * twice, or twice at once, gives the same variants, with URLs beside the banner's own.
   */
  addVariants(banner: StoredBanner): Promise<BannerVariant[]>;
  /** Deletes a file with its variants; a file that is already gone is not an error. */
  remove(key: string): Promise<void>;
  /** Every banner file the storage holds, with when it was stored (for the orphan sweep). */
  list(): Promise<ListedFile[]>;
  /** Whether it can take a banner now, checked once at start: throws a StorageError saying why not. */
  check(): Promise<void>;
}

export interface ListedFile {
  key: string;
  storedAt: Date;
  /** For a variant file, the key of the banner it belongs to: kept as long as a blog names that one. */
  of?: string;
}

/** The storage could not do its job (Cloudinary down, disk full): 502 to the client, details to the log. */
export class StorageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageError';
  }
}
