/**
 * The one place errors become responses. Our own HttpErrors carry their status and body; errors of
 * libraries (body parser, Mongoose, MongoDB, multer) are translated; anything else is a 500 whose
 * details go to the log, never to the client.
 */
import type { NextFunction, Request, Response } from 'express';
import mongoose from 'mongoose';
import {
  BadGateway,
  BadRequest,
  HttpError,
  NotFound,
  PayloadTooLarge,
  RequestValidationError,
  UnsupportedMediaType,
} from '../errors/http-errors';
import type { Logger } from '../lib/logger';
import { duplicateKeyField } from '../lib/mongo-errors';
import { StorageError } from '../services/storage';
import { JSON_OBJECT_MESSAGE } from '../validators/common.validators';
import { loggablePath, requestIdOf } from './request-logger';
import { ECHO_LIMITS } from './validate';
// dependency failures (issue 10): a separate branch of toHttpError, below
import { ServiceUnavailable } from '../errors/http-errors';
import { isDatabaseUnavailableError } from '../lib/database';

/** Errors raised by body-parser carry a `type` naming what went wrong. */
interface BodyParserError {
  type: string;
  status?: number;
  /** The body as received, on a parse failure. */
  body?: unknown;
}

/**
 * A body express.json refused in its strict mode although it is JSON (`"text"`, `42`, `null`): the same 400
 * as an array gets (validators/common.validators.ts), not a claim that it is not JSON.
 */
function scalarJsonBody(error: BodyParserError): HttpError | undefined {
  if (typeof error.body !== 'string') return undefined;
  try {
    JSON.parse(error.body);
  } catch {
    return undefined;
  }
  return RequestValidationError.forField('', JSON_OBJECT_MESSAGE, 'body', error.body.slice(0, ECHO_LIMITS.characters));
}

const isBodyParserError = (error: unknown): error is BodyParserError =>
  typeof error === 'object' &&
  error !== null &&
  typeof (error as BodyParserError).type === 'string' &&
  'expose' in error;

/** Retry-After of a 503 when the options do not say (the configuration's value). */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** Dependencies that cannot be reached: a 503 the client may retry, never a 500 that reads like a bug. */
function unavailableDependency(error: unknown, retryAfterSeconds: number): HttpError | undefined {
  if (isDatabaseUnavailableError(error)) {
    return new ServiceUnavailable('The database is unavailable, please try again later', retryAfterSeconds);
  }
  return undefined;
}

/** Translates a thrown value into an HttpError when it is the client's fault (or a dependency's); undefined otherwise. */
export function toHttpError(error: unknown, retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS): HttpError | undefined {
  if (error instanceof HttpError) return error;
  const unavailable = unavailableDependency(error, retryAfterSeconds);
  if (unavailable) return unavailable;
  if (isBodyParserError(error)) {
    switch (error.type) {
      case 'entity.parse.failed':
        return scalarJsonBody(error) ?? new BadRequest('Request body is not valid JSON');
      case 'entity.too.large':
        return new PayloadTooLarge('Request body is too large');
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return new UnsupportedMediaType('Unsupported request body encoding');
      case 'request.aborted':
      case 'request.size.invalid':
      case 'stream.encoding.set':
        return new BadRequest('Request body could not be read');
    }
  }
  const malformedRequest = malformedRequestError(error);
  if (malformedRequest) return malformedRequest;
  if (error instanceof StorageError) return new BadGateway('Banner storage is unavailable, please try again later');
  if (error instanceof mongoose.Error.DocumentNotFoundError) return new NotFound('Resource not found');
  if (error instanceof mongoose.Error.CastError) return new BadRequest(`Invalid value for ${error.path}`);
  if (error instanceof mongoose.Error.ValidationError) {
    const [path, detail] = Object.entries(error.errors)[0];
    return RequestValidationError.forField(path, detail.message);
  }
  const duplicateField = duplicateKeyField(error);
  if (duplicateField)
    return RequestValidationError.forField(duplicateField, `This ${duplicateField} is already in use`);
  return undefined;
}

/**
 * Requests Express's own parts could not read, which carry a 4xx status but no body-parser `type`:
 * a body that says `Content-Encoding: gzip` (or deflate, br) and is not (zlib's "incorrect header
 * check", wrapped by body-parser as a 400), and a path with malformed percent-encoding (the router's
 * URIError "Failed to decode param", status 400). The client's mistake: a 4xx in the spec's shape,
 * with a message of ours (the library's would echo the raw input).
 */
function malformedRequestError(error: unknown): HttpError | undefined {
  if (!(error instanceof Error)) return undefined;
  const status = (error as { status?: unknown }).status;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (error instanceof URIError) return new BadRequest('The URL contains malformed percent-encoding');
  // zlib's errors (gzip, deflate: Z_DATA_ERROR; brotli: ERR__ERROR_FORMAT_...) carry a numeric errno and a code
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  if (typeof code === 'string' && typeof errno === 'number' && (code.startsWith('Z_') || code.startsWith('ERR__'))) {
    return new BadRequest('Request body could not be decompressed as its Content-Encoding says');
  }
  return undefined;
}

export function notFoundHandler(req: Request): never {
  throw new NotFound(`Route ${req.method} ${req.path} not found`);
}

export function errorHandler(logger: Logger, options: { retryAfterSeconds?: number } = {}) {
  // Express recognises error middleware by its four parameters.
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const httpError = toHttpError(error, options.retryAfterSeconds);
    if (res.headersSent) {
      logger.error('error after the response started', { ...where(req, res), error: describe(error) });
      req.socket.destroy();
      return;
    }
    // a client that left while its body was read gets no answer: none could reach it, and one written to the
    // closed socket would read in the request's log line as a status it was sent
    if (httpError && httpError.status < 500 && req.socket.destroyed) return;
    if (httpError) {
      // a failing dependency is our problem even when the client gets a clean answer
      if (httpError.status >= 500) logger.error('dependency failure', { ...where(req, res), error: describe(error) });
      if (httpError instanceof ServiceUnavailable && httpError.retryAfterSeconds !== undefined)
        res.set('Retry-After', String(httpError.retryAfterSeconds));
      res.status(httpError.status).json(httpError.body());
      return;
    }
    logger.error('unexpected error', { ...where(req, res), error: describe(error) });
    res.status(500).json({ code: 'ServerError', message: 'Internal server error' });
  };
}

/** Which request failed: its id (also set by the log context, but errors of body parsing arrive outside it), method and path. */
function where(req: Request, res: Response) {
  return { requestId: requestIdOf(res), method: req.method, path: loggablePath(req.originalUrl) };
}

function describe(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: String(error) };
  // a dependency's own answer (Cloudinary's message, a disk error) travels as the cause
  const cause =
    error.cause === undefined
      ? undefined
      : error.cause instanceof Error
        ? error.cause.message
        : JSON.stringify(error.cause);
  return { name: error.name, message: error.message, stack: error.stack, ...(cause ? { cause } : {}) };
}
