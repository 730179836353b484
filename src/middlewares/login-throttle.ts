/**
 * Brute-force resistance for POST /auth/login, besides the global rate limit (which counts every
 * request of an IP, and so lets many addresses guess one password each without end):
 *
 * - per client IP: at most `maxFailuresPerIp` failed logins per window (any account, unknown emails too);
 * - per account (the normalised email): at most `maxFailuresPerAccount` failed logins per window, from
 *   any number of addresses. A successful login for that account clears its count. A wrong
 *   `current_password` on a profile update counts against the same bound: it is a guess at the same
 *   password, by whoever holds a session (a stolen access token must not try passwords without end).
 *
 * Past either bound, login answers 429 in the spec's shape (`{error}`) with Retry-After, until the
 * window ends: a victim is locked out for a while at most, never for good. Counts live in the shared
 * store (Redis) when there is one, so every instance sees them, and like the global limit they fail
 * open: a store outage lets logins through rather than stopping them.
 */
import type { Request, RequestHandler, Response } from 'express';
import { MemoryStore, rateLimit, type Options, type RateLimitInfo, type Store } from 'express-rate-limit';
import { matchedData } from 'express-validator';
import type { Logger } from '../lib/logger';
import { signedInUser, wasWrongCurrentPassword } from '../lib/request-locals';
import { LOGIN_THROTTLE_MESSAGE } from '../schemas/auth';

export interface LoginThrottleOptions {
  maxFailuresPerAccount: number;
  maxFailuresPerIp: number;
  windowMs: number;
  /** Shared stores (Redis, one prefix each) when several instances run; in-process memory otherwise. */
  stores?: { perAccount: Store; perIp: Store };
  logger: Logger;
}

export interface LoginThrottle {
  /** Before the validators: counts every failed login of the client's IP. */
  perIp: RequestHandler;
  /** After the validators (it keys on the validated, lower-cased email): counts logins per account. */
  perAccount: RequestHandler;
  /**
   * For a login that succeeded, or a password reset (which proves more than a login): the count of the
   * account with this (stored, normalised) email starts again. Fails open, like the counting.
   */
  clearFailuresOfAccount(email: string): Promise<void>;
  /**
   * After authentication, on a request that confirms the current password: past the account's bound it
   * answers 429 before any check; a wrong password (lib/request-locals.ts `refuseCurrentPassword`) counts as
   * a failed login.
   */
  perAccountOfCurrentPassword: RequestHandler;
}

const succeeded = (_req: Request, res: Response) => res.statusCode < 400;

export function createLoginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const { logger } = options;
  const perIpStore = options.stores?.perIp ?? new MemoryStore();
  const perAccountStore = options.stores?.perAccount ?? new MemoryStore();

  const shared = (scope: 'ip' | 'account', property: string) =>
    throttleOptions({
      name: 'login',
      scope,
      property,
      windowMs: options.windowMs,
      message: LOGIN_THROTTLE_MESSAGE,
      logger,
    });

  const perIp = rateLimit({
    ...shared('ip', 'loginFailuresOfIp'),
    limit: options.maxFailuresPerIp,
    store: perIpStore,
    // a success does not clear an address's count (one's own account would unlock guessing at others)
    skipSuccessfulRequests: true,
    requestWasSuccessful: succeeded,
  });

  const keyOfAccount = (email: string) => `account:${email}`;
  const accountKey = (req: Request) => keyOfAccount(String(matchedData(req).email));
  const perAccount = rateLimit({
    ...shared('account', 'loginFailuresOfAccount'),
    limit: options.maxFailuresPerAccount,
    store: perAccountStore,
    keyGenerator: accountKey,
  });
  /** A successful login clears the account's count, before it answers: only consecutive failures lock. */
  async function clearFailuresOfAccount(email: string): Promise<void> {
    try {
      await perAccountStore.resetKey(keyOfAccount(email));
    } catch (error) {
      logger.warn('login throttle: could not clear the count of an account', { error: describeError(error) });
    }
  }

  const perAccountOfCurrentPassword = rateLimit({
    ...shared('account', 'loginFailuresOfAccount'),
    limit: options.maxFailuresPerAccount,
    store: perAccountStore,
    // the key login counts under: the stored email is normalised as login's validated one is
    keyGenerator: (_req, res) => keyOfAccount(signedInUser(res).email),
    skip: (req) => (req.body as Record<string, unknown> | undefined)?.current_password === undefined,
    skipSuccessfulRequests: true,
    requestWasSuccessful: (_req, res) => !wasWrongCurrentPassword(res),
    // the login's own store, on purpose: both count guesses at one password, under one bound
    validate: { unsharedStore: false },
  });

  return { perIp, perAccount, clearFailuresOfAccount, perAccountOfCurrentPassword };
}

/**
 * What every throttle of the sign-in routes shares (this one, and middlewares/mail-throttle.ts): one
 * window, a store failure letting requests through (logged), and past the bound a 429 in the spec's shape
 * with Retry-After, the global limit's RateLimit-* headers left as they are.
 */
export function throttleOptions(throttle: {
  name: string;
  scope: string;
  /** Where express-rate-limit keeps this throttle's count on the request. */
  property: string;
  windowMs: number;
  message: string;
  logger: Logger;
}): Partial<Options> {
  const { name, scope, property, windowMs, message, logger } = throttle;
  return {
    windowMs,
    standardHeaders: false,
    legacyHeaders: false,
    requestPropertyName: property,
    passOnStoreError: true,
    logger: {
      error: (error, text) => logger.error(text ?? `${name} throttle`, { error: describeError(error) }),
      warn: (error, text) => logger.warn(text ?? `${name} throttle`, { error: describeError(error) }),
    },
    handler: (req, res) => {
      const info = (req as unknown as Record<string, RateLimitInfo | undefined>)[property];
      const seconds = info?.resetTime
        ? Math.max(1, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000))
        : Math.ceil(windowMs / 1000);
      logger.warn(`${name} throttled`, { scope, retryAfterSeconds: seconds });
      res.set('Retry-After', String(seconds));
      res.status(429).json({ error: message });
    },
  };
}

function describeError(error: unknown) {
  return error instanceof Error ? { name: error.name, message: error.message } : { value: String(error) };
}
