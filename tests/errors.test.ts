import express from 'express';
import mongoose from 'mongoose';
import request from 'supertest';
import { BadRequest, NotFound, RequestValidationError } from '../src/errors/http-errors';
import { createLogger } from '../src/lib/logger';
import { errorHandler, toHttpError } from '../src/middlewares/error-handler';
import { useTestApp } from './helpers/test-app';

const ctx = useTestApp();
const api = ctx.api;

const register = () => api.post('/auth/register').set('Content-Type', 'application/json');

describe('bad request bodies at the HTTP boundary', () => {
  it('answers malformed JSON with 400 BadRequest and no stack trace', async () => {
    const response = await register().send('{"email": "a@b.co", ');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: 'BadRequest', message: 'Request body is not valid JSON' });
    expect(response.text).not.toMatch(/at .*\.js|SyntaxError/);
  });

  it('answers a body over the 100 kB JSON limit with 413 in the error shape', async () => {
    const response = await register().send(JSON.stringify({ email: 'a@b.co', password: 'x'.repeat(101 * 1024) }));
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ code: 'ValidationError', message: expect.any(String) });
  });

  it('answers an unsupported charset with 415 in the error shape', async () => {
    const response = await api
      .post('/auth/register')
      .set('Content-Type', 'application/json; charset=klingon')
      .send('{}');
    expect(response.status).toBe(415);
    expect(response.body).toEqual({ code: 'BadRequest', message: expect.any(String) });
  });

  it.each(['utf-7', 'UTF-16LE', 'utf-32'])(
    'refuses JSON declared %s with 415: JSON is sent as UTF-8',
    async (charset) => {
      const response = await api
        .post('/auth/register')
        .set('Content-Type', `application/json; charset=${charset}`)
        .send('{"email":"a@b.co","password":"password123"}');
      expect(response.status).toBe(415);
      expect(response.body).toEqual({
        code: 'BadRequest',
        message: 'Unsupported request body encoding: JSON is sent as UTF-8',
      });
    },
  );

  it('takes JSON declared UTF-8, in any case and quoted', async () => {
    for (const charset of ['UTF-8', 'utf-8', '"utf-8"']) {
      const response = await api
        .post('/auth/login')
        .set('Content-Type', `application/json; charset=${charset}`)
        .send('{"email":"nobody@example.com","password":"password123"}');
      expect(response.status).toBe(404);
    }
  });

  it('refuses a JSON array (400 ValidationError), and never ignores a body of another content type (415)', async () => {
    const asArray = await register().send('[]');
    expect(asArray.status).toBe(400);
    expect(asArray.body.code).toBe('ValidationError');

    const asText = await api.post('/auth/register').set('Content-Type', 'text/plain').send('email=a@b.co');
    expect(asText.status).toBe(415);
    expect(asText.body).toEqual({ code: 'BadRequest', message: expect.stringContaining('application/json') });
  });

  it('shows a non-string value as JSON in the validation error, as the spec types value as a string', async () => {
    const response = await register().send({ email: { $gt: '' }, password: 'password123' });
    expect(response.status).toBe(400);
    expect(response.body.errors.email.value).toBe('{"$gt":""}');
  });

  it('answers unknown routes under any method with 404 NotFound', async () => {
    for (const method of ['get', 'post', 'put', 'delete'] as const) {
      const response = await request(ctx.app)[method]('/api/v1/does-not-exist');
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('NotFound');
    }
  });
});

describe('toHttpError, the converter', () => {
  const bodyParserError = (type: string) => Object.assign(new Error(type), { type, expose: true, status: 400 });

  it.each([
    ['entity.parse.failed', 400, 'BadRequest'],
    ['entity.too.large', 413, 'ValidationError'],
    ['encoding.unsupported', 415, 'BadRequest'],
    ['charset.unsupported', 415, 'BadRequest'],
    ['request.aborted', 400, 'BadRequest'],
    ['request.size.invalid', 400, 'BadRequest'],
    ['stream.encoding.set', 400, 'BadRequest'],
  ])('maps body-parser %s to %i %s', (type, status, code) => {
    const error = toHttpError(bodyParserError(type));
    expect(error?.status).toBe(status);
    expect(error?.code).toBe(code);
  });

  it('leaves an unknown body-parser type to the 500 path', () => {
    expect(toHttpError(bodyParserError('something.new'))).toBeUndefined();
  });

  it('passes our own HttpErrors through unchanged', () => {
    const error = new NotFound('Blog not found');
    expect(toHttpError(error)).toBe(error);
  });

  it('maps a Mongoose DocumentNotFoundError (saving a document deleted meanwhile) to 404 NotFound', () => {
    const error = toHttpError(new mongoose.Error.DocumentNotFoundError('{}'));
    expect(error).toBeInstanceOf(NotFound);
  });

  it('maps a Mongoose CastError to 400 BadRequest naming the path', () => {
    const cast = new mongoose.Error.CastError('ObjectId', 'nope', 'userId');
    expect(toHttpError(cast)).toBeInstanceOf(BadRequest);
    expect(toHttpError(cast)?.message).toContain('userId');
  });

  it('maps a Mongoose ValidationError to 400 ValidationError on the failing path', () => {
    const validation = new mongoose.Error.ValidationError();
    validation.addError('title', new mongoose.Error.ValidatorError({ message: 'Title is too long', path: 'title' }));
    const error = toHttpError(validation) as RequestValidationError;
    expect(error.status).toBe(400);
    expect(error.errors.title).toMatchObject({ path: 'title', msg: 'Title is too long', location: 'body' });
  });

  it.each([
    ['keyPattern', { code: 11000, keyPattern: { email: 1 } }],
    ['keyValue', { code: 11000, keyValue: { email: 'a@b.co' } }],
    [
      'the message only (offline stand-in)',
      { code: 11000, message: 'E11000 duplicate key error collection: db.users index: email_1 dup key' },
    ],
  ])('maps a duplicate-key error described by %s to 400 ValidationError on the field', (_label, raw) => {
    const error = toHttpError(Object.assign(new Error('dup'), raw)) as RequestValidationError;
    expect(error.status).toBe(400);
    expect(Object.keys(error.errors)).toEqual(['email']);
  });

  it('leaves other errors to the 500 path', () => {
    expect(toHttpError(new TypeError('boom'))).toBeUndefined();
    expect(toHttpError('a string')).toBeUndefined();
    expect(toHttpError({ code: 11001 })).toBeUndefined();
  });
});

describe('errorHandler', () => {
  function appThrowing(error: unknown, logged: unknown[]) {
    const logger = createLogger({ level: 'error', json: true });
    logger.error = ((message: string, meta: unknown) => {
      logged.push({ message, meta });
      return logger;
    }) as typeof logger.error;
    const app = express();
    app.get('/boom', () => {
      throw error;
    });
    app.get('/async', async () => {
      await Promise.resolve();
      throw error;
    });
    app.use(errorHandler(logger));
    return app;
  }

  it('answers an unexpected error with 500 ServerError, a generic message, and logs the details', async () => {
    const logged: unknown[] = [];
    const response = await request(appThrowing(new Error('secret internal detail'), logged)).get('/boom');

    expect(response.status).toBe(500);
    expect(response.body).toEqual({ code: 'ServerError', message: 'Internal server error' });
    expect(response.text).not.toContain('secret internal detail');
    expect(JSON.stringify(logged)).toContain('secret internal detail');
  });

  it('catches rejected promises from async handlers (Express 5)', async () => {
    const response = await request(appThrowing(new Error('async failure'), [])).get('/async');
    expect(response.status).toBe(500);
    expect(response.body.code).toBe('ServerError');
  });

  it('answers an HttpError with its status and body, logging nothing', async () => {
    const logged: unknown[] = [];
    const response = await request(
      appThrowing(RequestValidationError.forField('title', 'Title is required'), logged),
    ).get('/boom');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      code: 'ValidationError',
      errors: { title: { type: 'field', value: '', msg: 'Title is required', path: 'title', location: 'body' } },
    });
    expect(logged).toEqual([]);
  });
});
