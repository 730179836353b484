/** Role checks: a request goes through only when the signed-in user's role holds the right asked for. */
import type { NextFunction, Request, Response } from 'express';
import type { Types } from 'mongoose';
import { roleHasRight, type Right } from '../config/roles';
import { AuthorizationError } from '../errors/http-errors';
import { signedInUser } from '../lib/request-locals';

const FORBIDDEN = 'You do not have permission to perform this action';

/**
 * Whether the signed-in user's role holds `right`. A "no" never rests on a session check kept from an
 * earlier request (the role may have been raised since, by `npm run make-admin`): it asks the database first.
 */
async function holdsRight(res: Response, right: Right): Promise<boolean> {
  if (roleHasRight(signedInUser(res).role, right)) return true;
  const { checkSessionAgain } = res.locals;
  if (!checkSessionAgain) return false;
  res.locals.checkSessionAgain = undefined;
  await checkSessionAgain();
  return roleHasRight(signedInUser(res).role, right);
}

export function authorize(right: Right) {
  return async (_req: Request, res: Response, next: NextFunction) => {
    if (!(await holdsRight(res, right))) throw new AuthorizationError(FORBIDDEN);
    next();
  };
}

/** The owner of a resource goes through, and so does anyone whose role holds `right` (a moderator). */
export function authorizeOwnerOr(right: Right, ownerOf: (res: Response) => Types.ObjectId) {
  return async (_req: Request, res: Response, next: NextFunction) => {
    if (!ownerOf(res).equals(signedInUser(res)._id) && !(await holdsRight(res, right)))
      throw new AuthorizationError(FORBIDDEN);
    next();
  };
}
