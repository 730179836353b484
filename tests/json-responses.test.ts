/**
 * What travels with a JSON answer: compression above 1 KB for clients that accept it, conditional
 * GETs (ETag → 304) whatever the encoding, and the security headers a JSON body needs (the HTML
 * reference page keeps helmet's whole set).
 */
import request from 'supertest';
import { createApp } from '../src/app';
import { createBlog } from './helpers/blogs';
import { useTestApp } from './helpers/test-app';
import { bearer, registerAdmin, registerUser, type SignedInUser } from './helpers/users';

let reader: SignedInUser;
const ctx = useTestApp();
const api = ctx.api;
beforeAll(async () => {
  const admin = await registerAdmin(ctx.app);
  reader = await registerUser(ctx.app);
  const content = `<p>${'A paragraph long enough to be worth compressing. '.repeat(40)}</p>`;
  for (let i = 0; i < 3; i++) await createBlog(ctx.app, admin, { status: 'published', content });
});

const DOCUMENT_ONLY_HEADERS = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

describe('compression', () => {
  it('gzips a page of blogs for a client that accepts it, and sends it plain to one that does not', async () => {
    const gzipped = await api.as(reader).get('/blogs/').set('Accept-Encoding', 'gzip');
    const plain = await api.as(reader).get('/blogs/').set('Accept-Encoding', 'identity');

    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBeGreaterThan(1024);
    // the viewer's likes, views and all: the same JSON either way
    expect(gzipped.body).toEqual(plain.body);
    expect(plain.body.blogs).toHaveLength(3);
  });

  it('leaves answers under 1 KB uncompressed', async () => {
    const response = await api.as(reader).get('/users/current').set('Accept-Encoding', 'gzip');
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
  });
});

describe('conditional GET', () => {
  // HTTP caching below the contract: the OpenAPI document lists no 304s, so this app goes unchecked.
  const uncheckedApi = () => request(createApp({ config: ctx.config, logger: ctx.logger }));

  it.each(['gzip', 'identity'])('answers 304 to If-None-Match with the ETag of the page (%s)', async (encoding) => {
    const first = await uncheckedApi().get('/api/v1/blogs/').set(bearer(reader)).set('Accept-Encoding', encoding);
    expect(first.headers.etag).toBeDefined();

    const again = await uncheckedApi()
      .get('/api/v1/blogs/')
      .set(bearer(reader))
      .set('Accept-Encoding', encoding)
      .set('If-None-Match', first.headers.etag);
    expect(again.status).toBe(304);
    expect(again.text).toBeFalsy();
  });

  it("repeats its 200's Vary: a stylesheet's varies on Accept-Encoding, an image's does not", async () => {
    for (const [file, varies] of [
      ['swagger-ui.css', true],
      ['favicon-32x32.png', false],
    ] as const) {
      const path = `/api/v1/docs/assets/${file}`;
      const first = await uncheckedApi().get(path).set('Accept-Encoding', 'gzip').expect(200);
      const again = await uncheckedApi()
        .get(path)
        .set('Accept-Encoding', 'gzip')
        .set('If-None-Match', first.headers.etag);
      expect(again.status).toBe(304);
      expect({ file, vary: again.headers.vary }).toEqual({ file, vary: first.headers.vary });
      expect({ file, varies: /Accept-Encoding/.test(again.headers.vary ?? '') }).toEqual({ file, varies });
    }
  });
});

describe('security headers', () => {
  it('sends a JSON answer what protects a JSON body, and none of the headers meant for HTML documents', async () => {
    const response = await api.as(reader).get('/users/current');
    expect(response.headers).toMatchObject({
      'content-security-policy': "default-src 'self';frame-ancestors 'none'",
      'strict-transport-security': expect.stringContaining('max-age='),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'cross-origin-resource-policy': 'same-origin',
    });
    for (const header of DOCUMENT_ONLY_HEADERS)
      expect({ header, value: response.headers[header] }).toEqual({ header, value: undefined });
  });

  it("keeps helmet's document set on the HTML reference page, COOP only over HTTPS, and no upgrade-insecure-requests", async () => {
    const response = await api.get('/docs');
    expect(response.headers['content-type']).toMatch(/text\/html/);
    const overHttp = DOCUMENT_ONLY_HEADERS.filter((header) => header !== 'cross-origin-opener-policy');
    for (const header of overHttp)
      expect({ header, value: response.headers[header] }).toEqual({ header, value: expect.any(String) });
    // browsers ignore COOP from a plain-HTTP origin and log a console error for it (docs/spa.md)
    expect(response.headers['cross-origin-opener-policy']).toBeUndefined();
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
  });
});
