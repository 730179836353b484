/** The sign-in routes' fields and answers, and what they say when throttled. */
import { Type } from '@sinclair/typebox';
import { bodyOf, componentRef, oneOfField, optional, stringField } from './common';
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

// ---- mailed tokens: password reset and email verification -------------------------------------------

/** How long a password-reset link works (fixed; docs/security.md). */
export const RESET_TOKEN_TTL_MINUTES = 30;
/** How long an email-verification link works (fixed; docs/security.md). */
export const VERIFICATION_TOKEN_TTL_HOURS = 48;
/** Mailed tokens are 32 random bytes in base64url: 43 characters. */
export const MAILED_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** forgot-password answers this whether or not an account has the address (no enumeration). */
export const FORGOT_PASSWORD_ANSWER =
  'If an account has this email, a link to reset its password is on its way; it works once, for 30 minutes.';
export const RESEND_VERIFICATION_ANSWER = 'A link to verify your email is on its way.';
export const EMAIL_VERIFIED_ANSWER = 'Email verified';
/** What the mail throttle says (429), per address and per client IP alike. */
export const MAIL_THROTTLE_MESSAGE = 'Too many mail requests, please try again later.';
/** The 503 of the routes that mail when mail is off (production without SMTP_URL). */
export const MAIL_OFF_MESSAGE = 'Mail is not configured on this server (SMTP_URL is unset), so no link can be sent';
/** Why an unverified account is refused a write with EMAIL_VERIFICATION=required. */
export const UNVERIFIED_EMAIL_MESSAGE =
  'Verify your email address first: follow the link mailed to you, or ask for a new one with POST /auth/verify-email/resend';

const mailedTokenField = (label: string, description: string) =>
  stringField(
    label,
    Type.String({ pattern: MAILED_TOKEN_PATTERN.source, description: `${description}. Write-only` }),
    {
      matches: { options: MAILED_TOKEN_PATTERN, errorMessage: `${label} is invalid, used or expired` },
    },
    { trim: false },
  );

export const forgotPasswordBody = bodyOf({ email: emailField });

export const resetPasswordBody = bodyOf({
  token: mailedTokenField(
    'Reset token',
    `The \`token\` of the link mailed by POST /auth/forgot-password; works once, for ${RESET_TOKEN_TTL_MINUTES} minutes`,
  ),
  password: passwordField("; ends every session of the account, this one's login excepted"),
  confirm_password: confirmPasswordField,
});

export const verifyEmailBody = bodyOf({
  token: mailedTokenField(
    'Verification token',
    `The \`token\` of the link mailed at registration, on an email change or by POST /auth/verify-email/resend; works once, for ${VERIFICATION_TOKEN_TTL_HOURS} hours`,
  ),
});
