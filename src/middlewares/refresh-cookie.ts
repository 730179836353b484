/** Refresh and logout need the refresh cookie: a missing one is an authentication failure (401), not a validation error. */
import type { NextFunction, Request, Response } from 'express';
import { AuthenticationError } from '../errors/http-errors';

export function requireRefreshCookie(cookieName: string) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (typeof req.cookies?.[cookieName] !== 'string' || req.cookies[cookieName] === '') {
      throw new AuthenticationError('Refresh token required', 'refresh_token_missing');
    }
    next();
  };
}
