/**
 * PUBLIC_READS (an operator option, off by default): anonymous visitors may read published blogs and their
 * comments. A request without an Authorization header goes on as an anonymous viewer, on GET only; one that
 * sends a token is authenticated exactly as everywhere else (an invalid token is still a 401), so a signed-in
 * reader keeps likedByMe and an admin keeps the drafts. Controllers see the anonymous viewer through
 * lib/request-locals.ts viewerOf.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** `authenticate`, or, when public reads are on, `authenticate` only for requests that send a token or write. */
export function authenticateUnlessPublicRead(authenticate: RequestHandler, publicReads: boolean): RequestHandler {
  if (!publicReads) return authenticate;
  return (req: Request, res: Response, next: NextFunction) => {
    const anonymousRead = (req.method === 'GET' || req.method === 'HEAD') && req.get('authorization') === undefined;
    if (anonymousRead) return next();
    return authenticate(req, res, next);
  };
}
