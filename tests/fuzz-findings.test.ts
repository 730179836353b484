/**
 * Regression tests for what the schemathesis run (tools/fuzz) found: each case here was a response
 * that contradicted the OpenAPI document before its fix.
 */
import request from 'supertest';
import { bearer, registerUser } from './helpers/users';
import { createTestContext, type TestContext } from './helpers/test-app';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const api = () => request(ctx.app);

describe('JSON bodies that are not objects', () => {
  it.each([['[null, null]'], ['[]'], ['["a@b.co"]']])(
    'refuses PUT /users/current with the body %s (it was a 200 empty update)',
    async (body) => {
      const signedIn = await registerUser(ctx.app);
      const response = await api().put('/api/v1/users/current').set(bearer(signedIn)).set('Content-Type', 'application/json').send(body);

      expect(response.status).toBe(400);
      expect(response.body.code).toBe('ValidationError');
      expect(Object.values(response.body.errors)).toContainEqual(
        expect.objectContaining({ msg: 'Request body must be a JSON object', location: 'body' }),
      );
    },
  );

  it('still accepts PUT /users/current without a body, as an empty update', async () => {
    const signedIn = await registerUser(ctx.app);
    const response = await api().put('/api/v1/users/current').set(bearer(signedIn));
    expect(response.status).toBe(200);
  });
});
