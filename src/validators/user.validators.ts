/** express-validator chains for /users; the profile's fields and their rules are src/schemas/user.ts's. */
import { checkSchema } from 'express-validator';
import { profileUpdateBody } from '../schemas/user';
import { jsonObjectBody, objectIdParam, pagination } from './common.validators';
import { onlyFields } from './unknown-fields';

export const updateCurrentUserValidators = [
  onlyFields(profileUpdateBody.fields),
  jsonObjectBody,
  ...checkSchema(profileUpdateBody.rules, ['body']),
];

export const listUsersValidators = pagination;
export const userIdValidators = [objectIdParam('userId', 'User id')];
