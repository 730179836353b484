/**
 * The global rate limit: `max` requests per `windowMs` per client IP, on every route.
 * Headers follow the IETF draft 6 (RateLimit-Limit, -Remaining, -Reset, and Retry-After on 429);
 * the 429 body is `{"error": "..."}` and nothing else, as the spec says.
 */
import { rateLimit, type Store } from 'express-rate-limit';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  /** Shared store (Redis) when several instances run; in-process memory otherwise. */
  store?: Store;
}

export const RATE_LIMIT_MESSAGE = 'Too many requests, please try again later.';

export function createRateLimiter(options: RateLimitOptions) {
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.max,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    store: options.store,
    handler: (_req, res, _next, settings) => {
      res.status(settings.statusCode).json({ error: RATE_LIMIT_MESSAGE });
    },
  });
}
