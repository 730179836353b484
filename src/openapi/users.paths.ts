/** /users: the signed-in user's own account, and account administration for admins. */
import { SOCIAL_NETWORKS, USER_LIMITS } from '../schemas/user';
import { USERNAME_PATTERN } from '../validators/user.validators';
import {
  BEARER,
  COMMON_RESPONSES,
  JSON_BODY_RESPONSES,
  exampleUser,
  json,
  ref,
  respond,
  schemaRef,
  withDatabaseResponses,
} from './components';
import { emailSchema, passwordSchema } from './auth.paths';
import type { ContractPart, JsonSchema, Paths } from './types';

const name = (label: string): JsonSchema => ({
  type: 'string',
  maxLength: USER_LIMITS.name,
  description: `${label}; "" removes it. Plain text, returned exactly as sent: render it as text, never as HTML.`,
});

const socialLink: JsonSchema = {
  description: 'An http(s) URL, or "" to remove the link',
  anyOf: [
    { type: 'string', const: '' },
    { type: 'string', format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: USER_LIMITS.socialLink },
  ],
};

const profileUpdate: JsonSchema = {
  type: 'object',
  description:
    'Every field optional. Names arrive snake_case and links flat. Any other field (`role`, `firstName`, `socialLinks`, ...) ' +
    'is refused with 400 ValidationError naming it.',
  additionalProperties: false,
  properties: {
    username: {
      type: 'string',
      minLength: 1,
      maxLength: USER_LIMITS.username,
      pattern: USERNAME_PATTERN.source,
      description: 'Unique whatever its case: "ADMIN" is refused (400) when "admin" exists; kept in the case given',
    },
    email: emailSchema,
    password: { ...passwordSchema, description: `${passwordSchema.description}; ends the user's other sessions` },
    first_name: name('First name'),
    last_name: name('Last name'),
    ...Object.fromEntries(SOCIAL_NETWORKS.map((network) => [network, socialLink])),
  },
};

const userOk = (description: string) => respond(description, json(schemaRef('UserResponse'), { user: exampleUser }));
const deleted = respond('Deleted, with everything the account owned; no body');
const adminOnly = { '401': ref('responses', 'Unauthenticated'), '403': ref('responses', 'Forbidden') };

const userPaths: Paths = {
  '/users/current': {
    get: {
      operationId: 'getCurrentUser',
      tags: ['Users'],
      summary: 'The signed-in user',
      security: BEARER,
      responses: {
        '200': userOk('The signed-in user'),
        '401': ref('responses', 'Unauthenticated'),
        ...COMMON_RESPONSES,
      },
    },
    put: {
      operationId: 'updateCurrentUser',
      tags: ['Users'],
      summary: "Change the signed-in user's profile, email or password",
      security: BEARER,
      requestBody: {
        required: false,
        content: json(profileUpdate, { first_name: 'Ada', website: 'https://ada.example.com' }),
      },
      responses: {
        '200': userOk('The updated user'),
        '400': ref('responses', 'BadRequestOrValidation'),
        '401': ref('responses', 'Unauthenticated'),
        '404': ref('responses', 'NotFound'),
        ...JSON_BODY_RESPONSES,
        ...COMMON_RESPONSES,
      },
    },
    delete: {
      operationId: 'deleteCurrentUser',
      tags: ['Users'],
      summary: "Delete the signed-in user's account and what it owns",
      security: BEARER,
      responses: { '204': deleted, '401': ref('responses', 'Unauthenticated'), ...COMMON_RESPONSES },
    },
  },
  '/users/': {
    get: {
      operationId: 'listUsers',
      tags: ['Users'],
      summary: 'All users, newest first (admin)',
      security: BEARER,
      parameters: [ref('parameters', 'Limit'), ref('parameters', 'Offset')],
      responses: {
        '200': respond(
          'One page of users',
          json(schemaRef('UserPage'), { limit: 20, offset: 0, total: 1, users: [exampleUser] }),
          {
            links: {
              GetUser: { operationId: 'getUser', parameters: { userId: '$response.body#/users/0/_id' } },
              DeleteUser: { operationId: 'deleteUser', parameters: { userId: '$response.body#/users/0/_id' } },
            },
          },
        ),
        '400': ref('responses', 'ValidationFailed'),
        ...adminOnly,
        ...COMMON_RESPONSES,
      },
    },
  },
  '/users/{userId}': {
    get: {
      operationId: 'getUser',
      tags: ['Users'],
      summary: 'One user (admin)',
      security: BEARER,
      parameters: [ref('parameters', 'UserId')],
      responses: {
        '200': userOk('The user'),
        '400': ref('responses', 'ValidationFailed'),
        ...adminOnly,
        '404': ref('responses', 'NotFound'),
        ...COMMON_RESPONSES,
      },
    },
    delete: {
      operationId: 'deleteUser',
      tags: ['Users'],
      summary: "Delete a user's account and what it owns (admin)",
      security: BEARER,
      parameters: [ref('parameters', 'UserId')],
      responses: {
        '204': deleted,
        '400': ref('responses', 'ValidationFailed'),
        ...adminOnly,
        '404': ref('responses', 'NotFound'),
        ...COMMON_RESPONSES,
      },
    },
  },
};

/** Every operation of /users uses the database. */
export const userContract: ContractPart = {
  paths: withDatabaseResponses(userPaths),
  tags: [{ name: 'Users', description: 'Profiles and account administration' }],
};
