/** Role checks: a request goes through only when the signed-in user's role holds the right asked for. */
import type { NextFunction, Request, Response } from 'express';
import type { Types } from 'mongoose';
import { roleHasRight, type Right } from '../config/roles';
import { AuthorizationError } from '../errors/http-errors';
import { currentUser } from './authenticate';

const FORBIDDEN = 'You do not have permission to perform this action';

export function authorize(right: Right) {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!roleHasRight(currentUser(req).role, right)) throw new AuthorizationError(FORBIDDEN);
    next();
  };
}

/** The owner of a resource goes through, and so does anyone whose role holds `right` (a moderator). */
export function authorizeOwnerOr(right: Right, ownerOf: (req: Request) => Types.ObjectId) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const user = currentUser(req);
    if (!ownerOf(req).equals(user._id) && !roleHasRight(user.role, right)) throw new AuthorizationError(FORBIDDEN);
    next();
  };
}
