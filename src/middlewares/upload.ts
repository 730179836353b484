/**
 * Multipart parsing for the blog forms: one optional file field, `banner_image`, held in memory.
 * The 2 MB limit is enforced by multer while the body streams in, so an oversized file is refused
 * after 2 MB + 1 byte has been read, never buffered whole. The file's type is checked later, from its bytes.
 *
 * At most BODIES_IN_MEMORY bodies are read at once, each holding its place until its answer is sent
 * (the buffers live as long as the request); the others wait their turn with their bytes unread, which
 * TCP keeps at the client. Fifty uploads at once then hold a few buffers, not fifty. The queue costs no
 * throughput, as an upload is bound by re-encoding its image (one per spare core, services/banner-image.ts).
 * The wait is bounded: a place is held no longer than its request may last (its body within
 * the HTTP_TIMEOUTS request deadline, its banner's storage within STORAGE_SAVE_TIMEOUT_MS).
 */
import type { NextFunction, Request, Response } from 'express';
import multer from 'multer';
import onFinished from 'on-finished';
import pLimit from 'p-limit';
import { BadRequest, PayloadTooLarge, RequestValidationError } from '../errors/http-errors';
import { BANNER_FIELD, BLOG_LIMITS } from '../schemas/blog';
import { BANNER_LIMITS } from '../services/banner-image';

/** Multipart bodies read into memory at once: each up to a 2 MB banner and the form's fields. */
export const BODIES_IN_MEMORY = 4;

/** The fields a blog form may carry, a repeated `tags` counted once per value. */
const FORM_FIELDS = 2 * BLOG_LIMITS.tags;

export function uploadBanner(options: { contentMaxLength: number }) {
  const parse = multer({
    storage: multer.memoryStorage(),
    limits: {
      fileSize: BANNER_LIMITS.bytes,
      files: 1,
      // each field once, but tags repeated up to their bound: room for a few more, so that 11 tags hear
      // "at most 10" from the validators
      fields: FORM_FIELDS,
      // the longest content allowed, at up to 4 bytes a character; the validators then count characters
      fieldSize: options.contentMaxLength * 4,
      parts: FORM_FIELDS + 1,
    },
  }).single(BANNER_FIELD);

  const inMemory = pLimit(BODIES_IN_MEMORY);
  return (req: Request, res: Response, next: NextFunction) => {
    inMemory(
      () =>
        new Promise<void>((leave) => {
          // called at once when the client left while waiting: its place goes to the next in line
          onFinished(res, () => leave());
          if (onFinished.isFinished(res)) return;
          parse(req, res, (error?: unknown) => {
            if (error) next(toUploadError(error));
            else next();
          });
        }),
    ).catch(next);
  };
}

/** Whatever goes wrong while reading a multipart body is the client's doing. */
function toUploadError(error: unknown) {
  if (!(error instanceof multer.MulterError)) return new BadRequest('Malformed multipart/form-data body');
  switch (error.code) {
    case 'LIMIT_FILE_SIZE':
      return new PayloadTooLarge(`Banner image must be at most ${BANNER_LIMITS.bytes / (1024 * 1024)} MB`);
    case 'LIMIT_FIELD_VALUE':
      return new PayloadTooLarge(error.field ? `Field "${error.field}" is too large` : 'A form field is too large');
    case 'LIMIT_UNEXPECTED_FILE':
    case 'LIMIT_FILE_COUNT':
      return RequestValidationError.forField(
        error.field ?? BANNER_FIELD,
        `Only one file is accepted, in the field "${BANNER_FIELD}"`,
      );
    case 'LIMIT_FIELD_COUNT':
    case 'LIMIT_PART_COUNT':
      return RequestValidationError.forField(
        'tags',
        `A blog form has at most ${FORM_FIELDS} fields: at most ${BLOG_LIMITS.tags} tags, each other field once`,
      );
    default:
      return new BadRequest(`Malformed multipart/form-data body: ${error.message}`);
  }
}
