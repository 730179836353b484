/**
 * With EMAIL_VERIFICATION=required, what others see (comments, likes, blogs) is written only by accounts
 * that proved their address: an unverified account reads but is refused those writes with 403, saying why.
 * An account without the field (from before verification was turned on) counts as unverified. Placed after
 * authenticate, whose check of a write always reads the user afresh.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { EmailVerification } from '../config';
import { AuthorizationError } from '../errors/http-errors';
import { signedInUser } from '../lib/request-locals';
import { UNVERIFIED_EMAIL_MESSAGE } from '../schemas/auth';

export function requireVerifiedEmail(mode: EmailVerification): RequestHandler {
  if (mode !== 'required') return (_req, _res, next) => next();
  return (_req: Request, res: Response, next: NextFunction) => {
    if (signedInUser(res).emailVerified !== true) throw new AuthorizationError(UNVERIFIED_EMAIL_MESSAGE);
    next();
  };
}
