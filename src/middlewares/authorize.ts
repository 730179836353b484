/** Role checks: a request goes through only when the signed-in user's role holds the right asked for. */
import type { NextFunction, Request, Response } from 'express';
import type { Types } from 'mongoose';
import { roleHasRight, type Right } from '../config/roles';
import { AuthorizationError } from '../errors/http-errors';
import { signedInUser } from '../lib/request-locals';

const FORBIDDEN = 'You do not have permission to perform this action';

export function authorize(right: Right) {
  return (_req: Request, res: Response, next: NextFunction) => {
    if (!roleHasRight(signedInUser(res).role, right)) throw new AuthorizationError(FORBIDDEN);
    next();
  };
}

/** The owner of a resource goes through, and so does anyone whose role holds `right` (a moderator). */
export function authorizeOwnerOr(right: Right, ownerOf: (res: Response) => Types.ObjectId) {
  return (_req: Request, res: Response, next: NextFunction) => {
    const user = signedInUser(res);
    if (!ownerOf(res).equals(user._id) && !roleHasRight(user.role, right)) throw new AuthorizationError(FORBIDDEN);
    next();
  };
}
