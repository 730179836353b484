/**
 * Shared pieces of the OpenAPI document: the users' and tokens' schemas (their fields are said in
 * src/schemas/, here they get examples), the error shapes and responses every route can give,
 * parameters, rate-limit headers and security schemes. The error codes come from src/errors.
 */
import { ERROR_CODES } from '../errors/http-errors';
import { AccessTokenSchema, LoginSchema, UNVERIFIED_EMAIL_MESSAGE } from '../schemas/auth';
import { DateTimeSchema, ObjectIdSchema, PAGE_QUERY, PAGINATION } from '../schemas/common';
import {
  AuthorCardSchema,
  PublicUserSchema,
  SocialLinksSchema,
  UserPageSchema,
  UserResponseSchema,
  UserSchema,
} from '../schemas/user';
import {
  HTTP_METHODS,
  type HeaderObject,
  type HttpMethod,
  type JsonSchema,
  type MediaType,
  type Operation,
  type ParameterObject,
  type Paths,
  type Reference,
  type ResponseObject,
  type SecurityScheme,
} from './types';

export const ref = (kind: 'schemas' | 'responses' | 'parameters' | 'headers', name: string): Reference => ({
  $ref: `#/components/${kind}/${name}`,
});
export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** An application/json body with an example. */
export const json = (schema: JsonSchema, example?: unknown): Record<string, MediaType> => ({
  'application/json': example === undefined ? { schema } : { schema, example },
});

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'RateLimit-Reset': ref('headers', 'RateLimitReset'),
};

/** The directives of a public answer (middlewares/public-cache.ts): PUBLIC_READS's, or 60 and 300 seconds. */
const PUBLIC_DIRECTIVES = 'public, max-age=\\d+, stale-while-revalidate=\\d+';
const ETAG_HEADER: HeaderObject = {
  description: 'A weak ETag: send it back as If-None-Match for a 304 while the answer is unchanged',
  schema: { type: 'string' },
};
/** The headers of a cacheable read: always public (the feeds), or public only for anonymous readers (the blog reads). */
export const CACHE_HEADERS: Record<'public' | 'publicWhenAnonymous', Record<string, HeaderObject>> = {
  public: {
    'Cache-Control': {
      description: "public, max-age and stale-while-revalidate: PUBLIC_READS's directives, or 60 and 300 seconds",
      schema: { type: 'string', pattern: `^${PUBLIC_DIRECTIVES}$` },
    },
    ETag: ETAG_HEADER,
  },
  publicWhenAnonymous: {
    'Cache-Control': {
      description:
        'private for a signed-in reader; for an anonymous one (PUBLIC_READS), public with max-age and stale-while-revalidate',
      schema: { type: 'string', pattern: `^(private|${PUBLIC_DIRECTIVES})$` },
    },
    ETag: ETAG_HEADER,
  },
};

/** A response; every response of the API carries the rate-limit headers (the limiter runs first). */
export function respond(
  description: string,
  content?: Record<string, MediaType>,
  extra: Pick<ResponseObject, 'headers' | 'links'> = {},
): ResponseObject {
  return {
    description,
    headers: { ...RATE_LIMIT_HEADERS, ...extra.headers },
    ...(content ? { content } : {}),
    ...(extra.links ? { links: extra.links } : {}),
  };
}

/** A 429 of a throttle besides the global limit: its `{error}` message, and Retry-After. */
export const throttled = (description: string, error: string): ResponseObject =>
  respond(description, json(schemaRef('RateLimited'), { error }), {
    headers: { 'Retry-After': ref('headers', 'RetryAfter') },
  });

export const NOT_MODIFIED = respond('Unchanged since the ETag sent as If-None-Match; no body');

/** A description ended by a full stop, before the next sentence ("Give it at most once."). */
export const sentence = (text = '') => (text.endsWith('.') ? text : `${text}.`);

/** The responses any operation can give, whatever else it documents. */
export const COMMON_RESPONSES = {
  '429': ref('responses', 'TooManyRequests'),
  '500': ref('responses', 'ServerError'),
};

/** What any operation with a JSON body can answer before its validators run (body-parser). */
export const JSON_BODY_RESPONSES = {
  '413': ref('responses', 'PayloadTooLarge'),
  '415': ref('responses', 'UnsupportedMediaType'),
};

export const EXAMPLE_ID = '6b03359a24f41420bf3bfc3f';
const EXAMPLE_TIME = '2026-11-22T18:34:02.263Z';
const EXAMPLE_JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI2YjAzMzU5YTI0ZjQxNDIwYmYzYmZjM2YifQ.c2lnbmF0dXJlLW9mLWFuLWV4YW1wbGU';

export const exampleUser = {
  _id: EXAMPLE_ID,
  username: 'ada',
  email: 'ada@example.com',
  role: 'user',
  firstName: 'Ada',
  socialLinks: { website: 'https://ada.example.com' },
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
};
const { email: _email, ...examplePublicUser } = exampleUser;
export { examplePublicUser };
/** The example user as a blog card names them (a first name only). */
export const exampleAuthorCard = { _id: EXAMPLE_ID, name: 'Ada' };
export const exampleTokens = { accessToken: EXAMPLE_JWT };

export const schemas: Record<string, JsonSchema> = {
  ObjectId: { ...ObjectIdSchema, example: EXAMPLE_ID },
  DateTime: { ...DateTimeSchema, example: EXAMPLE_TIME },
  SocialLinks: SocialLinksSchema,
  User: { ...UserSchema, example: exampleUser },
  PublicUser: { ...PublicUserSchema, example: examplePublicUser },
  AuthorCard: { ...AuthorCardSchema, example: exampleAuthorCard },
  UserResponse: UserResponseSchema,
  UserPage: UserPageSchema,
  AccessToken: { ...AccessTokenSchema, example: exampleTokens },
  Login: { ...LoginSchema, example: { ...exampleTokens, user: exampleUser } },
  Message: {
    type: 'object',
    required: ['message'],
    additionalProperties: false,
    properties: { message: { type: 'string' } },
  },
  Error: {
    type: 'object',
    required: ['code', 'message'],
    additionalProperties: false,
    properties: {
      code: { type: 'string', enum: [...ERROR_CODES] },
      message: { type: 'string' },
    },
    example: { code: 'NotFound', message: 'User not found' },
  },
  FieldError: {
    type: 'object',
    required: ['type', 'value', 'msg', 'path', 'location'],
    additionalProperties: false,
    properties: {
      type: { type: 'string', example: 'field' },
      value: {
        type: 'string',
        description: 'The submitted value; JSON for non-strings; "" for secrets (passwords, tokens)',
      },
      msg: { type: 'string' },
      path: { type: 'string' },
      location: { type: 'string', enum: ['body', 'query', 'params', 'cookies', 'headers', ''] },
    },
  },
  ValidationError: {
    type: 'object',
    required: ['code', 'errors'],
    additionalProperties: false,
    properties: {
      code: { const: 'ValidationError' },
      errors: { type: 'object', minProperties: 1, additionalProperties: schemaRef('FieldError') },
    },
    example: {
      code: 'ValidationError',
      errors: {
        email: {
          type: 'field',
          value: 'not-an-email',
          msg: 'Email must be a valid email address',
          path: 'email',
          location: 'body',
        },
      },
    },
  },
  RateLimited: {
    type: 'object',
    required: ['error'],
    additionalProperties: false,
    properties: { error: { type: 'string' } },
    example: { error: 'Too many requests, please try again later.' },
  },
};

const errorOf = (code: string, message: string) => json(schemaRef('Error'), { code, message });

export const responses: Record<string, ResponseObject> = {
  ValidationFailed: respond(
    'Input validation failed: one entry per rejected field',
    json(schemaRef('ValidationError')),
  ),
  BadRequestOrValidation: respond(
    'Input validation failed (ValidationError), or the JSON body is malformed (BadRequest)',
    {
      'application/json': {
        schema: { anyOf: [schemaRef('ValidationError'), schemaRef('Error')] },
        examples: {
          validation: { summary: 'A field was rejected', value: schemas.ValidationError.example },
          malformed: {
            summary: 'The body is not JSON',
            value: { code: 'BadRequest', message: 'Request body is not valid JSON' },
          },
        },
      },
    },
  ),
  Unauthenticated: respond(
    'The access token (or refresh cookie) is missing, invalid or expired, or its session ended (AuthenticationError). ' +
      'An access token past its lifetime answers "Access token expired" (refresh it, then retry); any other rejected token ' +
      'answers "Access token is invalid" (sign in again).',
    errorOf('AuthenticationError', 'Access token expired'),
  ),
  Forbidden: respond(
    'The role lacks the right for this operation (AuthorizationError)',
    errorOf('AuthorizationError', 'You do not have permission to perform this action'),
  ),
  ForbiddenOrUnverified: respond(
    'The role lacks the right for this operation, or, with EMAIL_VERIFICATION=required, the account has not verified ' +
      'its email yet (AuthorizationError, the message says which)',
    errorOf('AuthorizationError', 'You do not have permission to perform this action'),
  ),
  Unverified: respond(
    'Only with EMAIL_VERIFICATION=required: the account has not verified its email yet (AuthorizationError); it may ' +
      'still read. POST /auth/verify-email/resend mails a new link',
    errorOf('AuthorizationError', UNVERIFIED_EMAIL_MESSAGE),
  ),
  NotFound: respond('No such resource (NotFound)', errorOf('NotFound', 'User not found')),
  PayloadTooLarge: respond(
    'The JSON body is larger than 100 kB',
    errorOf('ValidationError', 'Request body is too large'),
  ),
  UnsupportedMediaType: respond(
    'The body is not sent as `application/json` (a bare fetch sends text/plain, a form x-www-form-urlencoded), ' +
      'or declares a charset or encoding the server cannot read',
    errorOf('BadRequest', 'Request body must be sent as JSON, with the header Content-Type: application/json'),
  ),
  TooManyRequests: respond(
    'Rate limit exceeded: RATE_LIMIT_MAX requests per window per client IP',
    json(schemaRef('RateLimited')),
    {
      headers: { 'Retry-After': ref('headers', 'RetryAfter') },
    },
  ),
  ServerError: respond(
    'Unexpected failure; details go to the server log only',
    errorOf('ServerError', 'Internal server error'),
  ),
  ServiceUnavailable: respond(
    'The database cannot be reached or did not answer within its deadline (ServiceUnavailable); retry after Retry-After seconds',
    errorOf('ServiceUnavailable', 'The database is unavailable, please try again later'),
    { headers: { 'Retry-After': ref('headers', 'RetryAfter') } },
  ),
};

/** What every operation that reads or writes the database can answer besides COMMON_RESPONSES. */
export const DATABASE_RESPONSES = { '503': ref('responses', 'ServiceUnavailable') };

/**
 * The same paths with DATABASE_RESPONSES added to each operation (for the parts whose every operation uses the
 * database); an operation's own 503, which says more, is kept.
 */
export function withDatabaseResponses(paths: Paths): Paths {
  const withDatabaseResponse = (responses: Operation['responses']) =>
    '503' in responses ? responses : { ...responses, ...DATABASE_RESPONSES };
  return Object.fromEntries(
    Object.entries(paths).map(([template, item]) => [
      template,
      Object.fromEntries(
        Object.entries(item).map(([key, value]) =>
          HTTP_METHODS.includes(key as HttpMethod)
            ? [key, { ...(value as Operation), responses: withDatabaseResponse((value as Operation).responses) }]
            : [key, value],
        ),
      ),
    ]),
  ) as Paths;
}

export const parameters: Record<string, ParameterObject> = {
  Limit: {
    name: 'limit',
    in: 'query',
    description: `Page size, 1 to ${PAGINATION.maxLimit}; default ${PAGINATION.defaultLimit}. Give it at most once.`,
    schema: PAGE_QUERY.limit.schema,
    example: 10,
  },
  Offset: {
    name: 'offset',
    in: 'query',
    description:
      `How many to skip; default ${PAGINATION.defaultOffset}. Give it at most once. At most ${PAGINATION.maxOffset} ` +
      '(a bound of this API, beyond the spec\'s "minimum 0": a skip costs the database work in proportion, and larger ' +
      'numbers would lose precision); a larger offset answers 400 ValidationError.',
    schema: PAGE_QUERY.offset.schema,
    example: 0,
  },
  UserId: { name: 'userId', in: 'path', required: true, description: "The user's _id", schema: schemaRef('ObjectId') },
  BlogId: { name: 'blogId', in: 'path', required: true, description: "The blog's _id", schema: schemaRef('ObjectId') },
  CommentId: {
    name: 'commentId',
    in: 'path',
    required: true,
    description: "The comment's _id",
    schema: schemaRef('ObjectId'),
  },
};

const seconds = (description: string): HeaderObject => ({
  description,
  required: true,
  schema: { type: 'integer', minimum: 0 },
});

export const headers: Record<string, HeaderObject> = {
  RateLimitLimit: seconds('Requests allowed per window (IETF RateLimit header fields, draft 6)'),
  RateLimitRemaining: seconds('Requests left in the current window'),
  RateLimitReset: seconds('Seconds until the window resets'),
  RetryAfter: seconds('Seconds to wait before the next request'),
  SetRefreshCookie: {
    description:
      'refreshToken=<JWT>; Path=/api/v1/auth; HttpOnly; SameSite=Strict; Max-Age=REFRESH_TOKEN_TTL (Secure in production). ' +
      'The operator may set SameSite=Lax or None (COOKIE_SAMESITE; None needs COOKIE_SECURE=true) for a SPA on another site.',
    required: true,
    schema: { type: 'string', pattern: '^refreshToken=' },
  },
  ClearRefreshCookie: {
    description: 'refreshToken=; Path=/api/v1/auth; Expires in the past: clears the cookie',
    required: true,
    schema: { type: 'string', pattern: '^refreshToken=;' },
  },
};

export const securitySchemes: Record<string, SecurityScheme> = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The accessToken from register, login or refresh-token: `Authorization: Bearer <accessToken>`',
  },
  refreshCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'refreshToken',
    description:
      'The refresh JWT set by register and login (HttpOnly, SameSite=Strict unless COOKIE_SAMESITE says otherwise, Path=/api/v1/auth)',
  },
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'GET /metrics only, when METRICS_TOKEN is set: `Authorization: Bearer <METRICS_TOKEN>`',
  },
};

export const BEARER = [{ bearerAuth: [] }];

/** The servers of the paths served at the app's root rather than under /api/v1 (probes, feeds). */
export const AT_ROOT = [{ url: '/' }];
