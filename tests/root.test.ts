import { useTestApp } from './helpers/test-app';

const ctx = useTestApp();
const api = ctx.api;

describe('GET /api/v1/', () => {
  it('answers 200 with message, status, version 1.0.0, an absolute docs URL and a timestamp', async () => {
    const response = await api.get('/');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['docs', 'message', 'status', 'timestamp', 'version']);
    expect(response.body.version).toBe('1.0.0');
    expect(typeof response.body.message).toBe('string');
    expect(typeof response.body.status).toBe('string');
    // from the configuration (PUBLIC_URL, here its development default), never from the request's Host
    expect(response.body.docs).toBe('http://localhost:3000/api/v1/docs');
    expect(new Date(response.body.timestamp).toISOString()).toBe(response.body.timestamp);
  });

  it('answers the same without the trailing slash', async () => {
    const response = await api.get('/');
    expect(response.status).toBe(200);
    expect(response.body.version).toBe('1.0.0');
  });
});

describe('unknown routes', () => {
  it('answers 404 NotFound in the error shape', async () => {
    const response = await api.get('/nope');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'NotFound', message: expect.any(String) });
  });
});
