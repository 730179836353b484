/** The sign-in routes' fields and answers, and what they say when throttled. */
import { Type } from '@sinclair/typebox';
import { bodyOf, componentRef, oneOfField, optional } from './common';
import { ROLES, UserSchema, confirmPasswordField, emailField, passwordField } from './user';

/** What the sign-in routes say, shared by the throttle that says it and the document that shows it. */
export const LOGIN_THROTTLE_MESSAGE = 'Too many failed sign-in attempts, please try again later.';

/**
 * Register's and login's body. `role` is accepted at login too, as the interface allows (and ignored
 * there); untrimmed, as it always was.
 */
const credentials = {
  email: emailField,
  password: passwordField(),
  role: optional(oneOfField('Role', ROLES, { default: 'user' }, { trim: false })),
};
export const credentialsBody = bodyOf(credentials);

/** Register's body: login's, and the `confirm_password` a sign-up form sends (optional, must match). */
export const registerBody = bodyOf({ ...credentials, confirm_password: confirmPasswordField });

export const AccessTokenSchema = Type.Object(
  { accessToken: Type.String({ description: 'JWT access token for the Authorization header' }) },
  { additionalProperties: false },
);

export const LoginSchema = Type.Object(
  {
    accessToken: Type.String({ description: 'JWT access token' }),
    user: componentRef('User', UserSchema),
  },
  { additionalProperties: false },
);
