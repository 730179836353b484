/** express-validator chains for /auth; the fields and their rules are src/schemas/auth.ts's. */
import { checkSchema, cookie } from 'express-validator';
import { credentialsBody, registerBody } from '../schemas/auth';
import { jsonContentType, jsonObjectBody, objectIdParam } from './common.validators';
import { onlyFields } from './unknown-fields';

const credentials = (body: typeof credentialsBody | typeof registerBody) => [
  jsonContentType,
  onlyFields(body.fields),
  jsonObjectBody,
  ...checkSchema(body.rules, ['body']),
];
export const registerValidators = credentials(registerBody);
export const loginValidators = credentials(credentialsBody);

/** The cookie is checked for presence first (401, see requireRefreshCookie); here only its form. */
export const refreshCookieValidators = [cookie('refreshToken').isJWT().withMessage('Refresh token must be a JWT')];
/** Refresh and logout take no body: any field sent is a client mistake worth hearing about. */
export const noBodyFields = onlyFields([]);

export const sessionIdValidators = [objectIdParam('sessionId', 'Session id')];
