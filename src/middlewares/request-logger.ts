/**
 * Gives every request an id and writes one line when it ends: requestId, method, path, status,
 * durationMs. The id comes from the X-Request-Id header when it is well-formed (so a proxy's id
 * follows the request through), is generated otherwise, and is sent back in X-Request-Id.
 * Every line logged while the request is served carries the id (lib/request-context).
 *
 * Only the path is logged, never the query string, headers or body: those may carry secrets. A path
 * whose last part is a credential (a preview link's token) is logged without it.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { API_BASE_PATH } from '../config';
import type { Logger } from '../lib/logger';
import { endRequestContext, runInRequestContext, type RequestContext } from '../lib/request-context';

export const REQUEST_ID_HEADER = 'X-Request-Id';
/** Short, printable, no spaces or quotes: safe to echo in a header and to write in a log line. */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Long paths are cut in the log: a line per request should stay a line. */
const MAX_LOGGED_PATH_LENGTH = 512;
/** Paths that end in a credential: a preview link's token reads the draft without signing in. */
const CREDENTIAL_PATHS = [`${API_BASE_PATH}/blogs/preview/`];

export interface RequestLoggerOptions {
  logger: Logger;
  /** Paths probed every few seconds by load balancers and Docker; their lines go to `debug` to keep logs readable. */
  quietPaths?: readonly string[];
}

export function requestLogger({ logger, quietPaths = [] }: RequestLoggerOptions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const offered = req.get(REQUEST_ID_HEADER);
    const requestId = offered !== undefined && WELL_FORMED_REQUEST_ID.test(offered) ? offered : randomUUID();
    const startedAt = process.hrtime.bigint();
    const path = loggablePath(req.originalUrl);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const context: RequestContext = { requestId };

    res.once('close', () => {
      endRequestContext(context);
      const durationMs = Math.round(Number(process.hrtime.bigint() - startedAt) / 1e4) / 100;
      if (!res.writableFinished) {
        // The client went away (or shutdown cut the connection) before the response was complete. Its status
        // only if one was sent: before that, res.statusCode says 200.
        const status = res.headersSent ? { status: res.statusCode } : {};
        const entry = { requestId, method: req.method, path, ...status, durationMs, aborted: true };
        logger.warn(`${req.method} ${path} aborted`, entry);
        return;
      }
      const entry = { requestId, method: req.method, path, status: res.statusCode, durationMs };
      const level = quietPaths.includes(path) && res.statusCode < 400 ? 'debug' : 'info';
      // winston would run the line through its whole format chain before dropping it: ask first
      if (logger.isLevelEnabled(level))
        logger.log(level, `${req.method} ${path} ${res.statusCode} ${durationMs}ms`, entry);
    });

    runInRequestContext(context, next);
  };
}

/** The id the request logger gave this request's response. */
export function requestIdOf(res: Response): string | undefined {
  const value = res.getHeader(REQUEST_ID_HEADER);
  return typeof value === 'string' ? value : undefined;
}

/** A request's path as a log line may show it: no query string, no credential, not too long. */
export function loggablePath(url: string): string {
  const path = url.split('?')[0];
  // routing ignores case, so a token sent to /API/V1/BLOGS/PREVIEW/… reads the draft all the same
  const lower = path.toLowerCase();
  const credential = CREDENTIAL_PATHS.find((prefix) => lower.startsWith(prefix) && path.length > prefix.length);
  if (credential) return `${path.slice(0, credential.length)}…`;
  return path.length > MAX_LOGGED_PATH_LENGTH ? `${path.slice(0, MAX_LOGGED_PATH_LENGTH)}…` : path;
}
