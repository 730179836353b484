/**
 * Regression tests for what the schemathesis run (tools/fuzz) found: each case here was a response
 * that contradicted the OpenAPI document before its fix.
 */
import Ajv2020 from 'ajv/dist/2020';
import { buildOpenApiDocument } from '../src/openapi/document';
import { createBlog } from './helpers/blogs';
import { registerUser } from './helpers/users';
import { useTestApp } from './helpers/test-app';

const ctx = useTestApp();
const api = ctx.api;

describe('JSON bodies that are not objects', () => {
  it.each([['[null, null]'], ['[]'], ['["a@b.co"]']])(
    'refuses PUT /users/current with the body %s (it was a 200 empty update)',
    async (body) => {
      const signedIn = await registerUser(ctx.app);
      const response = await api.as(signedIn).put('/users/current').set('Content-Type', 'application/json').send(body);

      expect(response.status).toBe(400);
      expect(response.body.code).toBe('ValidationError');
      expect(Object.values(response.body.errors)).toContainEqual(
        expect.objectContaining({ msg: 'Request body must be a JSON object', location: 'body' }),
      );
    },
  );

  it.each([['"text"'], ['42'], ['null']])(
    'refuses the JSON %s the same way, not as JSON that does not parse',
    async (body) => {
      const response = await api.post('/auth/login').set('Content-Type', 'application/json').send(body);

      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        code: 'ValidationError',
        errors: {
          '': { type: 'field', value: body, msg: 'Request body must be a JSON object', path: '', location: 'body' },
        },
      });
    },
  );

  it('still says "not valid JSON" of a body that does not parse', async () => {
    const response = await api.post('/auth/login').set('Content-Type', 'application/json').send('{"email":');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: 'BadRequest', message: 'Request body is not valid JSON' });
  });

  it('still accepts PUT /users/current without a body, as an empty update', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api.as(signedIn).put('/users/current');
    expect(response.status).toBe(200);
  });
});

describe('blank text fields', () => {
  // schemathesis sent {"content": "\t"} to POST /comments/blog/{blogId}: the server trims and refuses it
  // (400), while the document allowed it (minLength 1 only). The document now says "not blank" too.
  const document = buildOpenApiDocument();
  const ajv = new Ajv2020({ strict: false });
  const bodySchema = (path: string, method: 'post' | 'put', mediaType: string) =>
    (
      document.paths[path]![method]!.requestBody!.content[mediaType] as {
        schema: { properties: Record<string, object> };
      }
    ).schema.properties;

  it.each([
    ['comment content', bodySchema('/comments/blog/{blogId}', 'post', 'application/json').content],
    ['blog title', bodySchema('/blogs/', 'post', 'multipart/form-data').title],
    ['blog content', bodySchema('/blogs/', 'post', 'multipart/form-data').content],
    ['blog title on update', bodySchema('/blogs/{blogId}', 'put', 'multipart/form-data').title],
  ])('are invalid in the document: %s', (_label, schema) => {
    const valid = ajv.compile(schema);
    expect(['\t', '   ', '\n'].map((text) => valid(text))).toEqual([false, false, false]);
    expect(valid(' x ')).toBe(true);
  });

  it('are refused by the server on POST /comments/blog/{blogId}', async () => {
    const admin = await registerUser(ctx.app, { email: 'admin@example.com', role: 'admin' });
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const response = await api.as(admin).post(`/comments/blog/${blog._id}`).send({ content: '\t' });
    expect(response.status).toBe(400);
    expect(response.body.errors.content).toMatchObject({ path: 'content', location: 'body' });
  });
});
