/** express-validator chains for /users; the profile's fields and their rules are src/schemas/user.ts's. */
import { checkSchema } from 'express-validator';
import { profileUpdateBody, socialLinksAliasRules } from '../schemas/user';
import { jsonContentType, jsonObjectBody, objectIdParam, pagination } from './common.validators';
import { onlyFields } from './unknown-fields';

export const updateCurrentUserValidators = [
  jsonContentType,
  onlyFields(profileUpdateBody.fields),
  jsonObjectBody,
  ...checkSchema(profileUpdateBody.rules, ['body']),
  ...checkSchema(socialLinksAliasRules, ['body']),
];

export const listUsersValidators = pagination;
export const userIdValidators = [objectIdParam('userId', 'User id')];
