/**
 * HTTP caching of reads (docs/performance.md): public answers (anonymous reads under PUBLIC_READS, the feeds)
 * carry `Cache-Control: public, max-age, stale-while-revalidate` and an ETag a CDN revalidates with
 * (If-None-Match → 304, Express's freshness check); every signed-in answer is `private` (keepPrivate, from
 * middlewares/authenticate.ts). Both vary on Authorization, so that no cache hands the anonymous page to a
 * signed-in reader or the reverse.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { PublicCachePolicy } from '../config';

const isRead = (req: Request) => req.method === 'GET' || req.method === 'HEAD';

/**
 * Marks a successful answer public when it is sent (errors and other statuses keep no cache headers of ours).
 * Its ETag is Express's own weak one, of the bytes Express encodes the body into anyway: hashing the string
 * here would encode it to UTF-8 a second time, which for a page with any character beyond Latin-1 (an
 * excerpt's ellipsis) costs more than the hash.
 */
function sendPublicly(res: Response, cacheControl: string, varyOnAuthorization: boolean): void {
  const send = res.send;
  res.send = function sendWithCacheHeaders(this: Response, body?: unknown) {
    if (this.statusCode === 200 && (typeof body === 'string' || Buffer.isBuffer(body))) {
      this.set('Cache-Control', cacheControl);
      if (varyOnAuthorization) this.vary('Authorization');
    }
    return send.call(this, body);
  } as Response['send'];
}

/**
 * A signed-in user's answer: `private`, so no shared cache keeps it, and varying on Authorization, so that a
 * browser never hands it to a request with another token or none (a page's `fetch(…, {cache: 'force-cache'})`
 * after logout read the last user's profile and sessions from its cache). Routes with a policy of their own
 * (preview links' `no-store`) set theirs over it.
 */
export function keepPrivate(res: Response): void {
  res.set('Cache-Control', 'private');
  res.vary('Authorization');
}

/**
 * Answers of the sign-in routes, which carry tokens (register, login, refresh, a reset): kept by no cache at
 * all, not even the browser's (RFC 6749 §5.1 asks the same of token answers). Those behind authentication
 * are `private` (keepPrivate) instead.
 */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.set('Cache-Control', 'no-store');
  next();
}

export const publicCacheControl = ({ maxAgeSeconds, staleWhileRevalidateSeconds }: PublicCachePolicy) =>
  `public, max-age=${maxAgeSeconds}, stale-while-revalidate=${staleWhileRevalidateSeconds}`;

/** For answers that are the same for everyone (the feeds, the sitemap): always public. */
export function alwaysPublic(policy: PublicCachePolicy): RequestHandler {
  const cacheControl = publicCacheControl(policy);
  return (req: Request, res: Response, next: NextFunction) => {
    if (isRead(req)) sendPublicly(res, cacheControl, false);
    next();
  };
}

/**
 * For reads that depend on the viewer, after authentication: public when anonymous (only possible under
 * PUBLIC_READS); a signed-in reader's stay private, as authentication leaves every answer (keepPrivate).
 */
export function publicWhenAnonymous(policy: PublicCachePolicy): RequestHandler {
  const cacheControl = publicCacheControl(policy);
  return (req: Request, res: Response, next: NextFunction) => {
    if (isRead(req) && res.locals.user === undefined) sendPublicly(res, cacheControl, true);
    next();
  };
}
