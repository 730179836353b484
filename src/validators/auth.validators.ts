/** express-validator chains for /auth. */
import { body, cookie } from 'express-validator';
import { ROLES, USER_LIMITS } from '../schemas/user';
import { jsonObjectBody, requiredString } from './common.validators';
import { onlyFields } from './unknown-fields';

/** bcrypt reads at most 72 bytes; longer passwords are refused instead of silently truncated. */
export const PASSWORD_LIMITS = { min: 8, maxBytes: 72 } as const;

export const emailField = (chain = requiredString('email', 'Email')) =>
  chain
    .isLength({ max: USER_LIMITS.email })
    .withMessage(`Email must be at most ${USER_LIMITS.email} characters`)
    .bail()
    .isEmail()
    .withMessage('Email must be a valid email address')
    .bail()
    .toLowerCase();

export const passwordField = (chain = requiredString('password', 'Password', { trim: false })) =>
  chain
    .isLength({ min: PASSWORD_LIMITS.min })
    .withMessage(`Password must be at least ${PASSWORD_LIMITS.min} characters`)
    .bail()
    .custom((value: string) => Buffer.byteLength(value, 'utf8') <= PASSWORD_LIMITS.maxBytes)
    .withMessage(`Password must be at most ${PASSWORD_LIMITS.maxBytes} bytes`);

const roleField = body('role')
  .optional()
  .isString()
  .withMessage('Role must be a string')
  .bail()
  .isIn(ROLES)
  .withMessage(`Role must be one of: ${ROLES.join(', ')}`);

// `role` is accepted at login too, as the interface allows (and ignored there)
const credentialFields = onlyFields(['email', 'password', 'role']);
export const registerValidators = [credentialFields, jsonObjectBody, emailField(), passwordField(), roleField];
export const loginValidators = [credentialFields, jsonObjectBody, emailField(), passwordField(), roleField];

/** The cookie is checked for presence first (401, see requireRefreshCookie); here only its form. */
export const refreshCookieValidators = [cookie('refreshToken').isJWT().withMessage('Refresh token must be a JWT')];
/** Refresh and logout take no body: any field sent is a client mistake worth hearing about. */
export const noBodyFields = onlyFields([]);
