/** /users: the signed-in user's own account, and account administration for admins. */
import { LOGIN_THROTTLE_MESSAGE } from '../schemas/auth';
import { profileUpdateBody } from '../schemas/user';
import {
  BEARER,
  COMMON_RESPONSES,
  JSON_BODY_RESPONSES,
  exampleUser,
  json,
  ref,
  respond,
  schemaRef,
  throttled,
  withDatabaseResponses,
} from './components';
import type { ContractPart, Paths } from './types';

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
        content: json(profileUpdateBody.schema, { first_name: 'Ada', website: 'https://ada.example.com' }),
      },
      responses: {
        '200': userOk('The updated user'),
        '400': ref('responses', 'BadRequestOrValidation'),
        '401': ref('responses', 'Unauthenticated'),
        '404': ref('responses', 'NotFound'),
        ...JSON_BODY_RESPONSES,
        ...COMMON_RESPONSES,
        '429': throttled(
          'The global rate limit, or, on a request sending current_password, too many failed logins of this account: ' +
            'a wrong current_password counts as one, under LOGIN_MAX_FAILURES_PER_ACCOUNT within LOGIN_FAILURE_WINDOW. ' +
            'Wait Retry-After seconds.',
          LOGIN_THROTTLE_MESSAGE,
        ),
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
