/** Role check: lets the request through only when the signed-in user's role holds `right`. */
import type { NextFunction, Request, Response } from 'express';
import { roleHasRight, type Right } from '../config/roles';
import { AuthorizationError } from '../errors/http-errors';
import { currentUser } from './authenticate';

export function authorize(right: Right) {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!roleHasRight(currentUser(req).role, right)) {
      throw new AuthorizationError('You do not have permission to perform this action');
    }
    next();
  };
}
