/**
 * The global rate limit: `max` requests per `windowMs` per client IP, on every route.
 * Headers follow the IETF draft 6 (RateLimit-Limit, -Remaining, -Reset, and Retry-After on 429);
 * the 429 body is `{"error": "..."}` and nothing else, as the spec says.
 *
 * With a shared store (Redis) the count holds across instances. When the store fails, requests go
 * through unlimited and the failure is logged (fail open): an outage of the counters must not
 * become an outage of the API.
 */
import { isIPv4 } from 'node:net';
import type { Request } from 'express';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import { plainAddress } from '../lib/client-address';
import type { Logger } from '../lib/logger';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  /** Shared store (Redis) when several instances run; in-process memory otherwise. */
  store?: Store;
  logger: Logger;
}

export const RATE_LIMIT_MESSAGE = 'Too many requests, please try again later.';

export function createRateLimiter(options: RateLimitOptions) {
  const { logger } = options;
  return rateLimit({
    windowMs: options.windowMs,
    limit: options.max,
    standardHeaders: 'draft-6',
    legacyHeaders: false,
    keyGenerator: clientKey,
    store: options.store,
    passOnStoreError: true,
    // The library's own messages (store failures, misconfiguration such as an unexpected
    // X-Forwarded-For) go to our log, with the request id, instead of the console.
    logger: {
      error: (error, message) => logger.error(message ?? 'rate limit', { error: describeError(error) }),
      warn: (error, message) => logger.warn(message ?? 'rate limit', { error: describeError(error) }),
    },
    handler: (_req, res, _next, settings) => {
      res.status(settings.statusCode).json({ error: RATE_LIMIT_MESSAGE });
    },
  });
}

/**
 * The library's key (an IPv4 address, or an IPv6 address's /56), without its IPv6 parser for the
 * addresses that need none: an IPv4 client reaches a dual-stack listener as `::ffff:a.b.c.d`, and parsing
 * that as IPv6 took ~10 µs of every request.
 */
function clientKey(req: Request): string {
  const ip = plainAddress(req.ip ?? '');
  return isIPv4(ip) ? ip : ipKeyGenerator(ip, 56);
}

function describeError(error: unknown) {
  return error instanceof Error ? { name: error.name, message: error.message } : { value: String(error) };
}
