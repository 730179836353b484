/**
 * Static files (local banners, the reference page's assets) served by express.static, whose `send`
 * refuses two kinds of ordinary request with an error of its own: a range past the file's end (416)
 * and a precondition that fails (If-Match, If-Unmodified-Since: 412). Those are the client's to fix:
 * answered with their status in the spec's error shape, not as a 500 with the file's type.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { PreconditionFailed, RangeNotSatisfiable } from '../errors/http-errors';

/** What `send` set for the file before it refused: none of it describes the error body (least of all a year's caching). */
const FILE_HEADERS = [
  'Content-Type',
  'Content-Length',
  'Content-Range',
  'Accept-Ranges',
  'ETag',
  'Last-Modified',
  'Cache-Control',
];

function refusedFileRequest(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  const { status, headers } = error as { status?: unknown; headers?: Record<string, string> };
  if (status !== 412 && status !== 416) return next(error);
  for (const name of FILE_HEADERS) res.removeHeader(name);
  if (status === 412)
    throw new PreconditionFailed('A precondition of the request (If-Match, If-Unmodified-Since) failed');
  // `bytes */<size>`: the range a client may ask for
  if (headers?.['Content-Range']) res.set('Content-Range', headers['Content-Range']);
  throw new RangeNotSatisfiable('The requested range is not within the file');
}

/** express.static with its refusals answered as the client's errors. */
export function staticFiles(root: string, options: Parameters<typeof express.static>[1]): RequestHandler[] {
  return [express.static(root, options), refusedFileRequest as unknown as RequestHandler];
}
