/**
 * Where banner images live. Two implementations: Cloudinary (production, several instances) and a
 * local folder served by the API itself (development, no account needed). Both take an image that
 * has already been inspected (its type and size known) and give back a public URL and a key to delete it by.
 */

export interface StoredFile {
  /** Absolute public URL of the file. */
  url: string;
  /** The storage's own name for the file; what `remove` takes. */
  key: string;
}

export interface BannerUpload {
  data: Buffer;
  /** From the file's bytes, never from its name: png, jpeg or webp. */
  extension: string;
  mimeType: string;
  /** Absolute base URL of this API as the client reached it (local storage builds file URLs on it). */
  baseUrl: string;
}

export interface BannerStorage {
  /** Human-readable name for the log. */
  readonly kind: string;
  save(upload: BannerUpload): Promise<StoredFile>;
  /** Deletes a file; a file that is already gone is not an error. */
  remove(key: string): Promise<void>;
  /** Every banner file the storage holds, with when it was stored (for the orphan sweep). */
  list(): Promise<ListedFile[]>;
}

export interface ListedFile {
  key: string;
  storedAt: Date;
}

/** The storage could not do its job (Cloudinary down, disk full): 502 to the client, details to the log. */
export class StorageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageError';
  }
}
