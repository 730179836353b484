/**
 * Decides what an uploaded banner really is. The type comes from the file's own first bytes (its magic
 * number), never from its name or the client's Content-Type; then the whole image is decoded, so a
 * truncated or corrupt file is refused here instead of being published, and its real pixel size is known.
 * What is stored is not the upload but its pixels encoded afresh in the same format: metadata (EXIF,
 * GPS, XMP, ICC, PNG text chunks) and anything hidden after the image's end (a script after IEND)
 * are gone, so a banner serves only as the picture it shows.
 */
import sharp from 'sharp';
import { cpuBoundLimit } from '../lib/cpu-bound';

import { BANNER_LIMITS, BANNER_VARIANT_WIDTHS, type BannerVariant } from '../schemas/blog';

export { BANNER_LIMITS };

export interface BannerImage {
  extension: 'png' | 'jpeg' | 'webp';
  mimeType: string;
  width: number;
  height: number;
}

/** A banner that passed inspection, with the bytes to store: its pixels re-encoded, without metadata. */
export interface InspectedBanner extends BannerImage {
  data: Buffer;
}

/** JPEG and WebP are lossy: re-encoding at high quality keeps a banner visually unchanged. */
const LOSSY_QUALITY = 90;

const SIGNATURES: { extension: BannerImage['extension']; mimeType: string; matches: (bytes: Buffer) => boolean }[] = [
  {
    extension: 'png',
    mimeType: 'image/png',
    matches: (bytes) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  {
    extension: 'jpeg',
    mimeType: 'image/jpeg',
    matches: (bytes) => bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])),
  },
  {
    extension: 'webp',
    mimeType: 'image/webp',
    matches: (bytes) => bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP',
  },
];

/** Why a file was refused, in words for the client. */
export class InvalidImageError extends Error {}

/**
 * Decoding and encoding take a core each and hold the image's pixels meanwhile: a burst of uploads waits
 * its turn here, as logins do for bcrypt, instead of taking every core from the reads and holding every
 * upload's pixels at once (lib/cpu-bound.ts).
 */
const imageWork = cpuBoundLimit();

export async function inspectBannerImage(upload: Buffer): Promise<InspectedBanner> {
  const signature = SIGNATURES.find((candidate) => candidate.matches(upload));
  if (!signature) throw new InvalidImageError('Banner image must be a PNG, JPEG or WebP image');
  return imageWork(() => reencode(upload, signature));
}

async function reencode(upload: Buffer, signature: (typeof SIGNATURES)[number]): Promise<InspectedBanner> {
  try {
    const image = sharp(upload, { failOn: 'truncated', limitInputPixels: BANNER_LIMITS.pixels });
    const metadata = await image.metadata();
    // The decoder must agree with the signature (a PNG header glued onto something else is not a PNG).
    if (metadata.format !== signature.extension || !metadata.width || !metadata.height)
      throw new Error(`decoded as ${metadata.format}`);
    if (Math.max(metadata.width, metadata.height) > BANNER_LIMITS.side)
      throw new InvalidImageError(`Banner image must be at most ${BANNER_LIMITS.side} pixels wide and high`);
    // Re-encoding decodes every pixel, which also proves the whole file readable. rotate() applies the EXIF
    // orientation to the pixels, since the tag itself is dropped with the rest of the metadata (sharp keeps none
    // unless asked to).
    const reencoded = image.rotate();
    if (signature.extension === 'png') reencoded.png();
    else if (signature.extension === 'jpeg') reencoded.jpeg({ quality: LOSSY_QUALITY, mozjpeg: false });
    else reencoded.webp({ quality: LOSSY_QUALITY });
    const { data, info } = await reencoded.toBuffer({ resolveWithObject: true });
    return {
      extension: signature.extension,
      mimeType: signature.mimeType,
      width: info.width,
      height: info.height,
      data,
    };
  } catch (error) {
    if (error instanceof InvalidImageError) throw error;
    if (error instanceof Error && /pixel limit/i.test(error.message)) {
      throw new InvalidImageError(`Banner image must have at most ${BANNER_LIMITS.pixels} pixels`);
    }
    throw new InvalidImageError('Banner image could not be decoded (truncated or corrupt)');
  }
}

// ---- variants ---------------------------------------------------------------------------------------

/** A variant's pixels, encoded. */
export interface RenderedVariant extends Omit<BannerVariant, 'url'> {
  data: Buffer;
}

/**
 * WebP at sharp's default quality; effort 2 of 6 encodes a 6-megapixel photo's variants in about half the
 * time of the default effort 4, for 3% more bytes (bench/README.md).
 */
const VARIANT_WEBP = { quality: 80, effort: 2 } as const;

/** The sizes a banner is served in: each standard width below its own (never upscaled), and its own. */
export function variantSizes(width: number, height: number): { width: number; height: number }[] {
  const widths = [...BANNER_VARIANT_WIDTHS.filter((standard) => standard < width), width];
  return widths.map((each) => ({ width: each, height: Math.max(1, Math.round((height * each) / width)) }));
}

/**
 * The variants of a banner, from its already re-encoded bytes, narrowest first. One job of the CPU bound
 * per banner (as its re-encoding is), so a burst of uploads finishes one banner after another rather than
 * all of them late. `signal` ends the wait at a deadline: queued, the job never starts; started, it stops
 * before the next width (sharp cannot stop an encoding half-way).
 */
export async function renderVariants(data: Buffer, width: number, signal?: AbortSignal): Promise<RenderedVariant[]> {
  const job = imageWork(async () => {
    const variants: RenderedVariant[] = [];
    for (const size of variantSizes(width, 1)) {
      signal?.throwIfAborted();
      const { data: encoded, info } = await sharp(data, { limitInputPixels: BANNER_LIMITS.pixels })
        .resize({ width: size.width, withoutEnlargement: true })
        .webp(VARIANT_WEBP)
        .toBuffer({ resolveWithObject: true });
      variants.push({ width: info.width, height: info.height, format: 'webp', data: encoded });
    }
    return variants;
  });
  if (!signal) return job;
  return new Promise((resolve, reject) => {
    const abandon = () => reject(signal.reason);
    if (signal.aborted) abandon();
    signal.addEventListener('abort', abandon, { once: true });
    job.then(resolve, reject).finally(() => signal.removeEventListener('abort', abandon));
  });
}
