/**
 * A browser refuses the answer to a page whose origin CORS_ORIGINS does not list, and its script sees only
 * "Failed to fetch": the API's log is where the developer can learn why. One warning line per origin per
 * process, naming it; at most `maxRemembered` origins are remembered (the oldest is forgotten first), so a
 * flood of made-up Origin headers costs bounded memory. Same-origin requests (Origin is the API's own host)
 * are not cross-origin and never warned about.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../lib/logger';

/** How many origins are remembered as already warned about. */
export const MAX_REMEMBERED_ORIGINS = 1000;
/** An Origin header is logged up to this many characters. */
const MAX_ORIGIN_LOGGED = 200;

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

export function warnUnlistedOrigins(options: { allowed: readonly string[]; logger: Logger; maxRemembered?: number }) {
  const allowed = new Set(options.allowed);
  const maxRemembered = options.maxRemembered ?? MAX_REMEMBERED_ORIGINS;
  const warned = new Set<string>();
  return function warnUnlistedOrigin(req: Request, _res: Response, next: NextFunction): void {
    const origin = req.headers.origin?.slice(0, MAX_ORIGIN_LOGGED);
    if (!origin || allowed.has(origin) || warned.has(origin) || hostOf(origin) === req.headers.host) return next();
    if (warned.size >= maxRemembered) warned.delete(warned.values().next().value as string);
    warned.add(origin);
    options.logger.warn(
      `request from origin ${origin}, which CORS_ORIGINS does not list: browsers will not let its pages read the answers ` +
        '(their scripts see "Failed to fetch"). Add it to CORS_ORIGINS if it is your front end (docs/spa.md)',
      { origin, corsOrigins: [...allowed] },
    );
    next();
  };
}
