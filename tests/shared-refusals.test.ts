/**
 * The refusals every resource shares, said once for every route of the contract that can give them:
 * 401 without a token, 404 for an unknown well-formed id, 400 for a malformed id, 403 for a regular user
 * on an admin route. The routes come from the OpenAPI document (tests/helpers/routes.ts reads the ones the
 * app registers; tests/contract/drift.test.ts keeps the two equal), and a first test in each table names
 * them, so that a route cannot fall out of a table unnoticed. A body sent to a write that takes none is refused too
 * (415 for another type than JSON, 400 for a JSON field), as docs/spa.md says. Each resource's own file tests what is its own.
 */
import type { Express } from 'express';
import request from 'supertest';
import { UNVERIFIED_EMAIL_MESSAGE } from '../src/schemas/auth';
import { JSON_CONTENT_TYPE_MESSAGE } from '../src/validators/common.validators';
import { buildOpenApiDocument, operationsOf, type DocumentedOperation } from '../src/openapi/document';
import { DeliveryModel, WebhookModel } from '../src/models/webhook.model';
import { createBlog } from './helpers/blogs';
import { useTestApp } from './helpers/test-app';
import { bearer, registerAdmin, registerUser, type SignedInUser } from './helpers/users';
import { expectCleanRefusal, expectDatabaseUnchanged } from './security/helpers';

const ctx = useTestApp();
const admin = ctx.signedInAdmin();
const reader = ctx.signedInUser();
/** What the ids of the routes name: a published blog that the reader has liked and commented on. */
const ids: Record<string, string> = {};
beforeAll(async () => {
  const blog = await createBlog(ctx.app, admin, { status: 'published' });
  await ctx.api.as(reader).post(`/likes/blog/${blog._id}`).expect(200);
  const comment = await ctx.api.as(reader).post(`/comments/blog/${blog._id}`).send({ content: 'First!' }).expect(201);
  const sessions = await ctx.api.as(reader).get('/auth/sessions').expect(200);
  // straight into the database: registering through the API would resolve the URL's host
  const webhook = await WebhookModel.create({
    url: 'https://hooks.example.com/a',
    events: ['blog.published'],
    secret: 's',
  });
  const delivery = await DeliveryModel.findOne({ webhook: webhook._id }).lean();
  Object.assign(ids, {
    webhookId: String(webhook._id),
    deliveryId: String(delivery?._id ?? webhook._id),
    sessionId: sessions.body.sessions[0]._id,
    blogId: blog._id,
    slug: blog.slug,
    userId: reader.user._id,
    commentId: comment.body.comment._id,
  });
});

const UNKNOWN_ID = '5f0000000000000000000000';
const operations = operationsOf(buildOpenApiDocument().paths);
const name = ({ method, template }: DocumentedOperation) => `${method.toUpperCase()} ${template}`;
const idParameterOf = ({ template }: DocumentedOperation) => /\{(\w+Id)\}/.exec(template)?.[1];
const forbiddenAnswer = ({ operation }: DocumentedOperation) =>
  (operation.responses['403'] as { $ref?: string } | undefined)?.$ref?.replace('#/components/responses/', '');
const isAdminOnly = (operation: DocumentedOperation) =>
  ['Forbidden', 'ForbiddenOrUnverified'].includes(forbiddenAnswer(operation) ?? '');
/** Writes others see, refused to unverified accounts with EMAIL_VERIFICATION=required. */
const needsVerifiedEmail = (operation: DocumentedOperation) =>
  ['Unverified', 'ForbiddenOrUnverified'].includes(forbiddenAnswer(operation) ?? '');
/** Routes behind the access token alone (logout also needs the refresh cookie; /metrics has a token of its own). */
const bearerOnly = operations.filter(
  ({ operation }) => JSON.stringify(operation.security) === JSON.stringify([{ bearerAuth: [] }]),
);
const withIdParameter = bearerOnly.filter((operation) => idParameterOf(operation) !== undefined);

/** A request to the operation with its path filled in, `params` over `ids`. */
function call(
  operation: DocumentedOperation,
  user: SignedInUser | undefined,
  params: Record<string, string> = {},
  app: Express = ctx.app,
) {
  const url = operation.fullPath.replace(/\{(\w+)\}/g, (_, param: string) => params[param] ?? ids[param]);
  const test = (request(app) as unknown as Record<string, (url: string) => request.Test>)[operation.method](url);
  return user ? test.set(bearer(user)) : test;
}
/** The same, with a body the route would accept. */
function send(
  operation: DocumentedOperation,
  user: SignedInUser | undefined,
  params: Record<string, string> = {},
  app: Express = ctx.app,
) {
  const test = call(operation, user, params, app);
  if (operation.template === '/blogs/{blogId}' && operation.method === 'put') return test.field('title', 'x');
  if (operation.template === '/comments/blog/{blogId}' && operation.method === 'post') {
    return test.send({ content: 'Hello?' });
  }
  return test;
}
/** Who would be allowed on the route: an admin on admin routes, a regular user elsewhere. */
const allowedUser = (operation: DocumentedOperation) => (isAdminOnly(operation) ? admin : reader);

/** Every route with an id in its path, as the tables below find them in the contract. */
const ROUTES_WITH_ID = [
  'DELETE /auth/sessions/{sessionId}',
  'GET /users/{userId}',
  'DELETE /users/{userId}',
  'GET /blogs/user/{userId}',
  'PUT /blogs/{blogId}',
  'DELETE /blogs/{blogId}',
  'POST /likes/blog/{blogId}',
  'DELETE /likes/blog/{blogId}',
  'GET /comments/blog/{blogId}',
  'POST /comments/blog/{blogId}',
  'DELETE /comments/{commentId}',
  'POST /blogs/{blogId}/preview-link',
  'DELETE /blogs/{blogId}/preview-link',
  'POST /trash/{blogId}/restore',
  'DELETE /trash/{blogId}',
  'DELETE /webhooks/{webhookId}',
  'GET /webhooks/{webhookId}/deliveries',
  'POST /webhooks/{webhookId}/deliveries/{deliveryId}/replay',
];

describe('without a token', () => {
  it('covers every route behind the access token', () => {
    const sessions = ['GET /auth/sessions', 'DELETE /auth/sessions', 'POST /auth/verify-email/resend'];
    const others = ['GET /users/current', 'PUT /users/current', 'DELETE /users/current', 'GET /users/', 'GET /blogs/'];
    const webhooks = ['GET /webhooks/', 'POST /webhooks/', 'GET /trash/', 'DELETE /trash/'];
    const withoutId = [
      ...sessions,
      ...others,
      ...webhooks,
      'POST /blogs/',
      'GET /blogs/{slug}',
      'GET /comments/',
      'GET /tags/',
    ];
    expect(bearerOnly.map(name).sort()).toEqual([...withoutId, ...ROUTES_WITH_ID].sort());
  });

  it.each(bearerOnly.map((operation) => [name(operation), operation] as const))(
    '%s answers 401 AuthenticationError and changes nothing',
    async (_name, operation) => {
      const response = await expectDatabaseUnchanged(() => send(operation, undefined));
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ code: 'AuthenticationError', message: expect.any(String) });
    },
  );
});

describe('an unknown well-formed id', () => {
  const answeringNotFound = withIdParameter.filter(({ operation }) => '404' in operation.responses);

  it('covers every route with an id that can be unknown', () => {
    // an unknown author has no blogs: an empty page, not a 404
    expect(answeringNotFound.map(name)).toEqual(ROUTES_WITH_ID.filter((route) => route !== 'GET /blogs/user/{userId}'));
  });

  it.each(answeringNotFound.map((operation) => [name(operation), operation] as const))(
    '%s answers 404 NotFound naming the resource',
    async (_name, operation) => {
      const param = idParameterOf(operation)!;
      const response = await send(operation, allowedUser(operation), { [param]: UNKNOWN_ID });
      const resource = {
        blogId: 'Blog',
        userId: 'User',
        commentId: 'Comment',
        sessionId: 'Session',
        webhookId: 'Webhook',
      }[param];
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ code: 'NotFound', message: `${resource} not found` });
    },
  );
});

describe('a malformed id', () => {
  it('covers every route with an id', () => {
    expect(withIdParameter.map(name)).toEqual(ROUTES_WITH_ID);
  });

  describe.each(withIdParameter.map((operation) => [name(operation), operation] as const))('%s', (_name, operation) => {
    it.each(['not-an-id', '12345'])('answers 400 ValidationError on the id for %s', async (malformed) => {
      const param = idParameterOf(operation)!;
      const response = await send(operation, allowedUser(operation), { [param]: malformed });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('ValidationError');
      expect(response.body.errors[param]).toEqual({
        type: 'field',
        value: malformed,
        msg: expect.any(String),
        path: param,
        location: 'params',
      });
    });
  });
});

describe('every admin operation of the contract, as a regular user', () => {
  const adminOperations = operations.filter(isAdminOnly);

  it('finds the admin operations in the contract', () => {
    expect(adminOperations.map(name).sort()).toEqual([
      'DELETE /blogs/{blogId}',
      'DELETE /blogs/{blogId}/preview-link',
      'DELETE /trash/',
      'DELETE /trash/{blogId}',
      'DELETE /users/{userId}',
      'DELETE /webhooks/{webhookId}',
      'GET /comments/',
      'GET /trash/',
      'GET /users/',
      'GET /users/{userId}',
      'GET /webhooks/',
      'GET /webhooks/{webhookId}/deliveries',
      'POST /blogs/',
      'POST /blogs/{blogId}/preview-link',
      'POST /trash/{blogId}/restore',
      'POST /webhooks/',
      'POST /webhooks/{webhookId}/deliveries/{deliveryId}/replay',
      'PUT /blogs/{blogId}',
    ]);
  });

  it.each(adminOperations.map((operation) => [operation.method.toUpperCase(), operation.fullPath, operation] as const))(
    '%s %s answers 403 AuthorizationError and changes nothing',
    async (method, _fullPath, operation) => {
      const response = await expectDatabaseUnchanged(() =>
        call(operation, reader, { userId: admin.user._id }).send(
          method === 'GET' || method === 'DELETE' ? undefined : { title: 'Owned', role: 'admin' },
        ),
      );
      expectCleanRefusal(response, 403);
      expect(response.body).toEqual({ code: 'AuthorizationError', message: expect.any(String) });
    },
  );
});

describe('every write others see, by an unverified account (EMAIL_VERIFICATION=required)', () => {
  const gated = operations.filter(needsVerifiedEmail);
  /** An app requiring verified addresses, on this file's database, and accounts that never verified theirs. */
  const unverified = ctx.fixture(async () => {
    const { app } = ctx.buildApp({ EMAIL_VERIFICATION: 'required' });
    return { app, admin: await registerAdmin(app, 'chief@example.com'), reader: await registerUser(app) };
  });

  it('finds them in the contract', () => {
    expect(gated.map(name)).toEqual([
      'POST /blogs/',
      'PUT /blogs/{blogId}',
      'POST /likes/blog/{blogId}',
      'POST /comments/blog/{blogId}',
    ]);
  });

  it.each(gated.map((operation) => [name(operation), operation] as const))(
    '%s answers 403 AuthorizationError saying why, and changes nothing',
    async (_name, operation) => {
      const user = isAdminOnly(operation) ? unverified.admin : unverified.reader;
      const response = await expectDatabaseUnchanged(() => send(operation, user, {}, unverified.app));
      expectCleanRefusal(response, 403);
      expect(response.body).toEqual({ code: 'AuthorizationError', message: UNVERIFIED_EMAIL_MESSAGE });
    },
  );
});

describe('a body sent to a write that takes none', () => {
  const withoutBody = operations.filter(({ method, operation }) => method !== 'get' && !operation.requestBody);

  it('covers every write of the contract without a request body', () => {
    expect(withoutBody.map(name).sort()).toEqual(
      [
        'POST /auth/refresh-token',
        'POST /auth/logout',
        'DELETE /auth/sessions',
        'POST /auth/verify-email/resend',
        'DELETE /users/current',
        'DELETE /trash/',
        'POST /trash/{blogId}/restore',
        ...ROUTES_WITH_ID.filter((route) => route.startsWith('DELETE ')),
        'POST /likes/blog/{blogId}',
        'POST /webhooks/{webhookId}/deliveries/{deliveryId}/replay',
      ].sort(),
    );
  });

  /** The request as the route's allowed user would make it (the refresh cookie too, for refresh and logout). */
  const asAllowed = (operation: DocumentedOperation) => {
    const user = allowedUser(operation);
    return call(operation, user).set('Cookie', user.refreshCookie);
  };

  describe.each(withoutBody.map((operation) => [name(operation), operation] as const))('%s', (_name, operation) => {
    it.each([
      ['a form', 'application/x-www-form-urlencoded', 'refreshToken=abc&x=1'],
      ['a text', 'text/plain', 'hello'],
    ])('refuses %s body (%s) with 415 and changes nothing', async (_kind, type, content) => {
      const response = await expectDatabaseUnchanged(() =>
        asAllowed(operation).set('Content-Type', type).send(content),
      );
      expectCleanRefusal(response, 415);
      expect(response.body).toEqual({ code: 'BadRequest', message: JSON_CONTENT_TYPE_MESSAGE });
    });

    it('refuses a JSON field with 400 naming it, its value never echoed, and changes nothing', async () => {
      const response = await expectDatabaseUnchanged(() => asAllowed(operation).send({ password: 'password123' }));
      expectCleanRefusal(response, 400);
      expect(response.body).toEqual({
        code: 'ValidationError',
        errors: {
          password: {
            type: 'field',
            value: '',
            msg: 'Unknown field "password" (this request takes no body fields)',
            path: 'password',
            location: 'body',
          },
        },
      });
    });
  });
});
