/**
 * Bounds on the routes that mail a link (forgot-password, verification resend), besides the global rate
 * limit: per address, at most MAILS_PER_ADDRESS requests per window, so a flood aimed at one mailbox
 * mails it a few times at most (no mail bomb, and no sending reputation spent on it); per client IP, at
 * most MAIL_REQUESTS_PER_IP, so one client cannot walk a list of addresses. Every request counts, whether
 * or not an account has the address, so a 429 tells nothing about accounts either. Same machinery as the
 * login throttle: one window (LOGIN_FAILURE_WINDOW), shared through Redis, failing open, 429 with Retry-After.
 */
import type { Request, RequestHandler } from 'express';
import { MemoryStore, rateLimit, type Store } from 'express-rate-limit';
import { matchedData } from 'express-validator';
import type { Logger } from '../lib/logger';
import { signedInUser } from '../lib/request-locals';
import { MAIL_THROTTLE_MESSAGE } from '../schemas/auth';
import { throttleOptions } from './login-throttle';

/** Requests for one address per window: a lost first mail and a retry or two, never a flood. */
export const MAILS_PER_ADDRESS = 3;
/** Requests from one client IP per window (a shared office address included). */
export const MAIL_REQUESTS_PER_IP = 20;

export interface MailThrottleOptions {
  windowMs: number;
  /**
   * Shared stores (Redis, one prefix each) when several instances run; in-process memory otherwise. A store
   * serves one limiter: reset links and verification links are counted apart, per address.
   */
  stores?: { perAddress: Store; perAddressOfUser: Store; perIp: Store };
  logger: Logger;
}

export interface MailThrottle {
  /** Before the validators: every mail request of the client's IP. */
  perIp: RequestHandler;
  /** After the validators: the validated, lower-cased `email` of the body. */
  perAddress: RequestHandler;
  /** After authenticate: the signed-in user's address (verification resend). */
  perAddressOfUser: RequestHandler;
}

export function createMailThrottle(options: MailThrottleOptions): MailThrottle {
  const shared = (scope: string, property: string) =>
    throttleOptions({ name: 'mail', scope, property, ...options, message: MAIL_THROTTLE_MESSAGE });
  const perAddress = (key: (req: Request) => string, store: Store = new MemoryStore()) =>
    rateLimit({
      ...shared('address', 'mailRequestsOfAddress'),
      limit: MAILS_PER_ADDRESS,
      store,
      keyGenerator: (req) => `address:${key(req)}`,
    });
  return {
    perIp: rateLimit({
      ...shared('ip', 'mailRequestsOfIp'),
      limit: MAIL_REQUESTS_PER_IP,
      store: options.stores?.perIp ?? new MemoryStore(),
    }),
    perAddress: perAddress((req) => String(matchedData(req).email), options.stores?.perAddress),
    perAddressOfUser: perAddress((req) => signedInUser(req.res!).email, options.stores?.perAddressOfUser),
  };
}
