/** /auth: register, login, refresh and logout, and the signed-in user's sessions. */
import {
  EMAIL_VERIFIED_ANSWER,
  FORGOT_PASSWORD_ANSWER,
  LOGIN_THROTTLE_MESSAGE,
  MAIL_OFF_MESSAGE,
  MAIL_THROTTLE_MESSAGE,
  RESEND_VERIFICATION_ANSWER,
  RESET_TOKEN_TTL_MINUTES,
  credentialsBody,
  forgotPasswordBody,
  registerBody,
  resetPasswordBody,
  verifyEmailBody,
} from '../schemas/auth';
import { SESSIONS_LISTED, SessionListSchema, SessionSchema } from '../schemas/session';
import {
  BEARER,
  COMMON_RESPONSES,
  EXAMPLE_ID,
  JSON_BODY_RESPONSES,
  exampleTokens,
  exampleUser,
  json,
  ref,
  respond,
  schemaRef,
  throttled,
  withDatabaseResponses,
} from './components';
import type { ContractPart, JsonSchema, Operation, Paths } from './types';

/** Register's and login's body, with what `role` means for each. */
const credentials = (body: typeof credentialsBody | typeof registerBody, roleNote: string): JsonSchema => {
  const { role, ...fields } = body.schema.properties;
  return { ...body.schema, properties: { ...fields, role: { ...role, description: roleNote } } };
};

const setsRefreshCookie = { 'Set-Cookie': ref('headers', 'SetRefreshCookie') };
const refreshCookieSecurity = [{ refreshCookie: [] }];

const credentialsOperation = (
  body: typeof credentialsBody | typeof registerBody,
  operation: Omit<Operation, 'requestBody' | 'tags'>,
  roleNote: string,
): Operation => ({
  tags: ['Auth'],
  ...operation,
  requestBody: {
    required: true,
    content: json(credentials(body, roleNote), { email: 'ada@example.com', password: 'correct horse' }),
  },
});

const authPaths: Paths = {
  '/auth/register': {
    post: credentialsOperation(
      registerBody,
      {
        operationId: 'register',
        summary: 'Create an account and sign in',
        description:
          'The username is derived from the email (see docs/decisions.md). Registering as `admin` needs an email listed in ADMIN_EMAILS.',
        security: [],
        responses: {
          '201': respond(
            'Signed up; the refresh token is in the cookie',
            json(schemaRef('Login'), { ...exampleTokens, user: exampleUser }),
            {
              headers: setsRefreshCookie,
              links: {
                GetUser: { operationId: 'getUser', parameters: { userId: '$response.body#/user/_id' } },
                DeleteUser: { operationId: 'deleteUser', parameters: { userId: '$response.body#/user/_id' } },
              },
            },
          ),
          '400': ref('responses', 'BadRequestOrValidation'),
          '403': respond(
            'Role admin asked for an email not in ADMIN_EMAILS (AuthorizationError)',
            json(schemaRef('Error'), {
              code: 'AuthorizationError',
              message: 'This email may not register as an admin',
            }),
          ),
          ...JSON_BODY_RESPONSES,
          ...COMMON_RESPONSES,
        },
      },
      'Optional; `admin` only for whitelisted emails',
    ),
  },
  '/auth/login': {
    post: credentialsOperation(
      credentialsBody,
      {
        operationId: 'login',
        summary: 'Sign in with email and password',
        security: [],
        responses: {
          '200': respond('Signed in; the refresh token is in the cookie', json(schemaRef('Login')), {
            headers: setsRefreshCookie,
          }),
          '400': ref('responses', 'BadRequestOrValidation'),
          '404': respond(
            'No account has this email',
            json(schemaRef('Error'), { code: 'NotFound', message: 'User not found' }),
          ),
          ...JSON_BODY_RESPONSES,
          ...COMMON_RESPONSES,
          '429': throttled(
            'The global rate limit, or too many failed logins: LOGIN_MAX_FAILURES_PER_ACCOUNT for this account (from any ' +
              'address) or LOGIN_MAX_FAILURES_PER_IP from this address, within LOGIN_FAILURE_WINDOW. Wait Retry-After ' +
              "seconds; a successful login or password reset clears the account's count, and no lock outlasts its window.",
            LOGIN_THROTTLE_MESSAGE,
          ),
        },
      },
      'Accepted for symmetry with register, and ignored',
    ),
  },
  '/auth/refresh-token': {
    post: {
      operationId: 'refreshToken',
      tags: ['Auth'],
      summary: 'A new access token for the session of the refresh cookie',
      description: 'The refresh token is not rotated: the same cookie stays valid until logout or expiry.',
      security: refreshCookieSecurity,
      responses: {
        '200': respond('A fresh access token', json(schemaRef('AccessToken'))),
        '400': respond('The cookie is present but not a JWT', json(schemaRef('ValidationError'))),
        '401': ref('responses', 'Unauthenticated'),
        ...COMMON_RESPONSES,
      },
    },
  },
  '/auth/logout': {
    post: {
      operationId: 'logout',
      tags: ['Auth'],
      summary: 'End the session of the refresh cookie and clear the cookie',
      security: [{ ...BEARER[0], ...refreshCookieSecurity[0] }],
      responses: {
        '200': respond('Logged out', json(schemaRef('Message'), { message: 'Logged out successfully' }), {
          headers: { 'Set-Cookie': ref('headers', 'ClearRefreshCookie') },
        }),
        '400': respond('The cookie is present but not a JWT', json(schemaRef('ValidationError'))),
        '401': ref('responses', 'Unauthenticated'),
        ...COMMON_RESPONSES,
      },
    },
  },
};

const EXAMPLE_MAILED_TOKEN = 'q5m1U0bW8y3kR2vT7xN4cP9hJ6fL0aZsD1gK8wE5oYi';
const mailOff = respond(
  'Mail is off: production without SMTP_URL (ServiceUnavailable, no Retry-After: retrying will not help)',
  json(schemaRef('Error'), { code: 'ServiceUnavailable', message: MAIL_OFF_MESSAGE }),
);
const mailThrottled = throttled(
  'The global rate limit, or the mail throttle: 3 requests per address, or 20 per client IP, within ' +
    'LOGIN_FAILURE_WINDOW, whether or not an account has the address. Wait Retry-After seconds.',
  MAIL_THROTTLE_MESSAGE,
);
const tokenRefused = (label: string) =>
  respond(
    `A field was rejected, or the ${label} token is unknown, used, expired or of another purpose (ValidationError on ` +
      '`token`), or the JSON body is malformed (BadRequest)',
    json({ anyOf: [schemaRef('ValidationError'), schemaRef('Error')] }),
  );
const mailedTokenBody = (schema: JsonSchema, example: Record<string, string>) => ({
  required: true,
  content: json(schema, { token: EXAMPLE_MAILED_TOKEN, ...example }),
});

const mailPaths: Paths = {
  '/auth/forgot-password': {
    post: {
      operationId: 'forgotPassword',
      tags: ['Auth'],
      summary: 'Mail a password-reset link to the account with this email, if there is one',
      description:
        'Answers 202 with the same body, at once, whether or not an account has the address: the mail goes out after ' +
        `the answer. The link (SITE_URL's /reset-password?token=) works once, for ${RESET_TOKEN_TTL_MINUTES} minutes.`,
      security: [],
      requestBody: { required: true, content: json(forgotPasswordBody.schema, { email: 'ada@example.com' }) },
      responses: {
        '202': respond(
          'Accepted; the same whether or not an account has the address',
          json(schemaRef('Message'), { message: FORGOT_PASSWORD_ANSWER }),
        ),
        '400': ref('responses', 'BadRequestOrValidation'),
        ...JSON_BODY_RESPONSES,
        ...COMMON_RESPONSES,
        '429': mailThrottled,
        '503': mailOff,
      },
    },
  },
  '/auth/reset-password': {
    post: {
      operationId: 'resetPassword',
      tags: ['Auth'],
      summary: 'Set a new password with a mailed reset token, and sign in',
      description:
        'Every session of the account ends (their access and refresh tokens stop working at once, on every instance); ' +
        'the answer is a fresh login, as POST /auth/login gives. The token works once.',
      security: [],
      requestBody: mailedTokenBody(resetPasswordBody.schema, { password: 'a new passphrase' }),
      responses: {
        '200': respond('Password set and signed in; the refresh token is in the cookie', json(schemaRef('Login')), {
          headers: setsRefreshCookie,
        }),
        '400': tokenRefused('reset'),
        ...JSON_BODY_RESPONSES,
        ...COMMON_RESPONSES,
      },
    },
  },
  '/auth/verify-email': {
    post: {
      operationId: 'verifyEmail',
      tags: ['Auth'],
      summary: "Prove the account's email with the token of a mailed verification link",
      description: 'Sets `emailVerified` on the account; no token needed besides the mailed one, which works once.',
      security: [],
      requestBody: mailedTokenBody(verifyEmailBody.schema, {}),
      responses: {
        '200': respond('Verified', json(schemaRef('Message'), { message: EMAIL_VERIFIED_ANSWER })),
        '400': tokenRefused('verification'),
        ...JSON_BODY_RESPONSES,
        ...COMMON_RESPONSES,
      },
    },
  },
  '/auth/verify-email/resend': {
    post: {
      operationId: 'resendVerification',
      tags: ['Auth'],
      summary: "Mail a new verification link to the signed-in user's email",
      description: 'Earlier links keep working until used or expired. No body.',
      security: BEARER,
      responses: {
        '202': respond('A link is on its way', json(schemaRef('Message'), { message: RESEND_VERIFICATION_ANSWER })),
        '400': respond(
          'The email is verified already (BadRequest), or a body was sent (ValidationError)',
          json({ anyOf: [schemaRef('ValidationError'), schemaRef('Error')] }),
        ),
        '401': ref('responses', 'Unauthenticated'),
        '404': respond(
          'EMAIL_VERIFICATION is off',
          json(schemaRef('Error'), {
            code: 'NotFound',
            message: 'Email verification is off on this server (EMAIL_VERIFICATION=off)',
          }),
        ),
        ...COMMON_RESPONSES,
        '429': mailThrottled,
        '503': mailOff,
      },
    },
  },
};

const exampleSession = {
  _id: EXAMPLE_ID,
  createdAt: '2026-11-22T18:34:02.263Z',
  lastUsedAt: '2026-11-23T09:12:44.010Z',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:135.0) Gecko/20100101 Firefox/135.0',
  ip: '203.0.113.7',
  current: true,
};
const sessionEnded = (description: string) => respond(`${description}; no body`);

const sessionPaths: Paths = {
  '/auth/sessions': {
    get: {
      operationId: 'listSessions',
      tags: ['Auth'],
      summary: "The signed-in user's sessions, where they are signed in",
      description:
        `Each login or register opens one; logout, a password change or ending it here closes it. Newest first, at most the ${SESSIONS_LISTED} ` +
        'most recent (older ones still work, and `DELETE /auth/sessions` ends them too).',
      security: BEARER,
      responses: {
        '200': respond('The live sessions', json(schemaRef('SessionList'), { sessions: [exampleSession] })),
        '401': ref('responses', 'Unauthenticated'),
        ...COMMON_RESPONSES,
      },
    },
    delete: {
      operationId: 'endOtherSessions',
      tags: ['Auth'],
      summary: 'End every session of the signed-in user but this one (sign out everywhere else)',
      description: 'Their access and refresh tokens stop working at once, on every instance.',
      security: BEARER,
      responses: {
        '204': sessionEnded('Every other session ended'),
        '401': ref('responses', 'Unauthenticated'),
        ...COMMON_RESPONSES,
      },
    },
  },
  '/auth/sessions/{sessionId}': {
    delete: {
      operationId: 'endSession',
      tags: ['Auth'],
      summary: 'End one session of the signed-in user (a lost phone)',
      description:
        'Its access and refresh tokens stop working at once, on every instance. Ending the current session signs this ' +
        'client out without clearing its cookie (logout also clears it).',
      security: BEARER,
      parameters: [
        {
          name: 'sessionId',
          in: 'path',
          required: true,
          description: "The session's _id, as GET /auth/sessions lists it",
          schema: schemaRef('ObjectId'),
        },
      ],
      responses: {
        '204': sessionEnded('The session ended'),
        '400': ref('responses', 'ValidationFailed'),
        '401': ref('responses', 'Unauthenticated'),
        '404': respond(
          "The signed-in user has no session of this id (ended, expired, or another user's)",
          json(schemaRef('Error'), { code: 'NotFound', message: 'Session not found' }),
        ),
        ...COMMON_RESPONSES,
      },
    },
  },
};

/** Every operation of /auth uses the database. */
export const authContract: ContractPart = {
  paths: {
    ...withDatabaseResponses({ ...authPaths, ...sessionPaths }),
    // forgot-password answers before the database is asked; the others may answer its 503 too
    ...withDatabaseResponses(mailPaths),
  },
  schemas: { Session: { ...SessionSchema, example: exampleSession }, SessionList: SessionListSchema },
  tags: [{ name: 'Auth', description: 'Accounts, sign-in and tokens, and where one is signed in' }],
};
