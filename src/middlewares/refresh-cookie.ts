/**
 * Refresh and logout need the refresh cookie: a missing one is an authentication failure (401), not a
 * validation error. A browser leaves it out when the page is signed out, when the page and the API are
 * not same-site, or when the request was sent without `credentials: 'include'`: the message says what to check.
 */
import type { NextFunction, Request, Response } from 'express';
import { AuthenticationError } from '../errors/http-errors';

export const REFRESH_COOKIE_MISSING_MESSAGE =
  'Refresh token required: no refreshToken cookie came with this request. Signed out, or the browser did not send it: ' +
  "send requests with credentials: 'include', and serve the page and the API from the same site (docs/spa.md)";

export function requireRefreshCookie(cookieName: string) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (typeof req.cookies?.[cookieName] !== 'string' || req.cookies[cookieName] === '') {
      throw new AuthenticationError(REFRESH_COOKIE_MISSING_MESSAGE, 'refresh_token_missing');
    }
    next();
  };
}
