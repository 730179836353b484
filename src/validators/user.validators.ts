/** express-validator chains for /users. */
import { body } from 'express-validator';
import { SOCIAL_NETWORKS, USER_LIMITS } from '../schemas/user';
import { emailField, passwordField } from './auth.validators';
import { jsonObjectBody, objectIdParam, optionalString, pagination } from './common.validators';
import { onlyFields } from './unknown-fields';

/** Usernames appear in URLs and mentions: letters, digits, ".", "_" and "-". */
export const USERNAME_PATTERN = /^[A-Za-z0-9._-]+$/;

const nameField = (field: string, label: string) =>
  optionalString(field, label)
    .isLength({ max: USER_LIMITS.name })
    .withMessage(`${label} must be at most ${USER_LIMITS.name} characters`);

/** A social link: an http(s) URL of at most 100 characters, or "" to remove it. */
const socialLinkField = (network: string) =>
  optionalString(network, `${network} link`)
    .isLength({ max: USER_LIMITS.socialLink })
    .withMessage(`${network} link must be at most ${USER_LIMITS.socialLink} characters`)
    .bail()
    .if(body(network).notEmpty())
    .isURL({ protocols: ['http', 'https'], require_protocol: true })
    .withMessage(`${network} link must be a valid http(s) URL`);

export const updateCurrentUserValidators = [
  // read-only fields (`role`, `_id`) and response names (`firstName`, `socialLinks`) are refused, not ignored
  onlyFields(['username', 'email', 'password', 'first_name', 'last_name', ...SOCIAL_NETWORKS]),
  jsonObjectBody,
  optionalString('username', 'Username')
    .isLength({ min: 1, max: USER_LIMITS.username })
    .withMessage(`Username must be 1 to ${USER_LIMITS.username} characters`)
    .bail()
    .matches(USERNAME_PATTERN)
    .withMessage('Username may contain only letters, digits, ".", "_" and "-"'),
  emailField(optionalString('email', 'Email')),
  passwordField(body('password').optional().isString().withMessage('Password must be a string').bail()),
  nameField('first_name', 'First name'),
  nameField('last_name', 'Last name'),
  ...SOCIAL_NETWORKS.map(socialLinkField),
];

export const listUsersValidators = pagination;
export const userIdValidators = [objectIdParam('userId', 'User id')];
