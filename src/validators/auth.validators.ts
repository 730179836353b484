/** express-validator chains for /auth; the fields and their rules are src/schemas/auth.ts's. */
import { checkSchema, cookie } from 'express-validator';
import { credentialsBody, forgotPasswordBody, registerBody, resetPasswordBody, verifyEmailBody } from '../schemas/auth';
import { jsonContentType, jsonObjectBody, objectIdParam } from './common.validators';
import { onlyFields } from './unknown-fields';

const jsonBody = (body: { fields: string[]; rules: Parameters<typeof checkSchema>[0] }) => [
  jsonContentType,
  onlyFields(body.fields),
  jsonObjectBody,
  ...checkSchema(body.rules, ['body']),
];
export const registerValidators = jsonBody(registerBody);
export const loginValidators = jsonBody(credentialsBody);
export const forgotPasswordValidators = jsonBody(forgotPasswordBody);
export const resetPasswordValidators = jsonBody(resetPasswordBody);
export const verifyEmailValidators = jsonBody(verifyEmailBody);

/** The cookie is checked for presence first (401, see requireRefreshCookie); here only its form. */
export const refreshCookieValidators = [cookie('refreshToken').isJWT().withMessage('Refresh token must be a JWT')];

export const sessionIdValidators = [objectIdParam('sessionId', 'Session id')];
