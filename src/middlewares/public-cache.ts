/**
 * HTTP caching of reads (docs/performance.md): public answers (anonymous reads under PUBLIC_READS, the feeds)
 * carry `Cache-Control: public, max-age, stale-while-revalidate` and an ETag a CDN revalidates with
 * (If-None-Match → 304, Express's freshness check); a signed-in reader's answers stay `private`. Both vary on
 * Authorization, so that no cache hands the anonymous page to a signed-in reader or the reverse.
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
 * PUBLIC_READS), private when signed in.
 */
export function publicWhenAnonymous(policy: PublicCachePolicy): RequestHandler {
  const cacheControl = publicCacheControl(policy);
  return (req: Request, res: Response, next: NextFunction) => {
    if (!isRead(req)) return next();
    if (res.locals.user === undefined) {
      sendPublicly(res, cacheControl, true);
    } else {
      res.set('Cache-Control', 'private');
      res.vary('Authorization');
    }
    next();
  };
}
