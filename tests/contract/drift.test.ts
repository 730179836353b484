/** The document and the routes never drift apart: each side must list exactly what the other has. */
import express, { Router } from 'express';
import { buildOpenApiDocument, operationsOf } from '../../src/openapi/document';
import { useTestApp } from '../helpers/test-app';
import { registeredRoutes } from '../helpers/routes';

const ctx = useTestApp();

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

function documentedOperations(paths = buildOpenApiDocument().paths): string[] {
  return operationsOf(paths).map(({ method, fullPath }) => key(method, fullPath));
}

describe('routes and the OpenAPI document', () => {
  it('documents every route the app registers, and registers every documented operation', () => {
    const registered = registeredRoutes(ctx.app).map(({ method, path }) => key(method, path));
    const documented = documentedOperations();

    expect({ missingFromDocument: registered.filter((route) => !documented.includes(route)) }).toEqual({
      missingFromDocument: [],
    });
    expect({ missingFromApp: documented.filter((operation) => !registered.includes(operation)) }).toEqual({
      missingFromApp: [],
    });
    expect(registered.length).toBeGreaterThanOrEqual(13);
  });

  it("places a path with its own server URL at the app's root, as /healthz will be", () => {
    const paths = { '/healthz': { servers: [{ url: '/' }], get: buildOpenApiDocument().paths['/']!.get! } };
    expect(documentedOperations(paths)).toEqual(['GET /healthz']);
    expect(documentedOperations({ '/users/{userId}': {}, '/': buildOpenApiDocument().paths['/'] })).toEqual([
      'GET /api/v1/',
    ]);
  });

  it('reads nested routers and converts :params, so a route added without documentation is caught', () => {
    const app = express();
    const inner = Router();
    inner.get('/', () => undefined);
    inner.patch('/:userId/avatar', () => undefined);
    const v1 = Router();
    v1.use('/users', inner);
    app.use('/api/v1', v1);

    expect(registeredRoutes(app).map(({ method, path }) => key(method, path))).toEqual([
      'GET /api/v1/users/',
      'PATCH /api/v1/users/{userId}/avatar',
    ]);
  });

  it('serves the blog, like and comment paths in the document', () => {
    const served = Object.keys(buildOpenApiDocument().paths);
    expect(served).toEqual(
      expect.arrayContaining([
        '/blogs/',
        '/blogs/user/{userId}',
        '/blogs/{slug}',
        '/blogs/{blogId}',
        '/likes/blog/{blogId}',
        '/comments/blog/{blogId}',
        '/comments/{commentId}',
      ]),
    );
  });
});
