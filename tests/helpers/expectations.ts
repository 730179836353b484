/** Assertions several test files make in the same words. */
import type { Response } from 'supertest';

/** The spec's 400 ValidationError naming one field, in express-validator's shape. */
export function expectFieldError(response: Response, field: string, location = 'body'): void {
  expect(response.status).toBe(400);
  expect(response.body.code).toBe('ValidationError');
  expect(response.body.errors[field]).toEqual({
    type: 'field',
    value: expect.any(String),
    msg: expect.any(String),
    path: field,
    location,
  });
}
