/**
 * Response validation against the OpenAPI document, for every response the integration tests get.
 *
 * useTestApp() (createTestContext()) hands tests an app wrapped by withContractCheck(): each response the real app
 * sends is captured on the server side (status, headers, body) and checked with Ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1) against the operation matched by method and path. Mismatches
 * are collected here and tests/helpers/contract-setup.ts fails the test (afterEach) or the file
 * (afterAll, for requests made in beforeAll) that received them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { Express } from 'express';
import { API_BASE_PATH, buildOpenApiDocument, operationsOf, pathPattern } from '../../src/openapi/document';
import type { HeaderObject, OpenApiDocument, Operation, Reference, ResponseObject } from '../../src/openapi/types';

export interface ObservedResponse {
  method: string;
  /** The request path with its query string, as the client sent it. */
  url: string;
  status: number;
  /** Lower-case names, as Node keeps them. */
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

/**
 * Responses that are not the API's, and why they are not in the document:
 * - the reference page's static assets (Swagger UI's scripts and styles: files, not API operations);
 * - /uploads: banner images served as static files (added with the blog routes; files, not JSON).
 */
export const EXEMPT_PREFIXES = [`${API_BASE_PATH}/docs/assets/`, '/uploads/'];

const DOCUMENT_ID = 'urn:blog-api:openapi';

const pointer = (...segments: string[]) =>
  segments.map((segment) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

export class ContractChecker {
  // validateSchema off: tests/contract/openapi.test.ts holds the document to the OpenAPI 3.1 schema and
  // strict Ajv once, where checking it again here cost every test file some 55 ms.
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp }>;

  constructor(readonly document: OpenApiDocument = buildOpenApiDocument()) {
    addFormats(this.ajv);
    this.ajv.addSchema(document as unknown as object, DOCUMENT_ID);
    // Literal paths first, so /users/current is not taken for /users/{userId}. Patterns are of the
    // full path the app serves (/api/v1 + template, or the path's own server URL + template).
    const fullPaths = new Map(operationsOf(document.paths).map(({ template, fullPath }) => [template, fullPath]));
    this.templates = [...fullPaths]
      .sort(([a], [b]) => (a.match(/\{/g) ?? []).length - (b.match(/\{/g) ?? []).length)
      .map(([template, fullPath]) => ({ template, pattern: pathPattern(fullPath) }));
  }

  private validator(jsonPointer: string): ValidateFunction {
    let validate = this.compiled.get(jsonPointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/${jsonPointer}` });
      this.compiled.set(jsonPointer, validate);
    }
    return validate;
  }

  private validate(jsonPointer: string, value: unknown): string | undefined {
    const validate = this.validator(jsonPointer);
    if (validate(value)) return undefined;
    return this.ajv.errorsText(validate.errors, { dataVar: 'body' });
  }

  /**
   * The documented path (the key in `paths`) of a request path that serves `method` (any method when
   * not given). Two templates can match one path (GET /blogs/{slug}, PUT /blogs/{blogId}), so the method
   * decides between them.
   */
  matchPath(path: string, method?: string): string | undefined {
    const candidates = this.templates.filter(({ pattern }) => pattern.test(path));
    const serving = method
      ? candidates.find(({ template }) => this.document.paths[template][method as 'get'])
      : undefined;
    return (serving ?? candidates[0])?.template;
  }

  /** Every way the response differs from the document; [] when it keeps the contract. */
  check(observed: ObservedResponse): string[] {
    const path = observed.url.split('?')[0];
    const method = observed.method.toLowerCase();
    if (EXEMPT_PREFIXES.some((prefix) => path.startsWith(prefix))) return [];
    // CORS preflights are answered by the cors middleware for the browser, not by an operation.
    if (method === 'options') return [];

    const documentedMethod = method === 'head' ? 'get' : method;
    const template = this.matchPath(path, documentedMethod);
    const operation = template
      ? (this.document.paths[template][documentedMethod as 'get'] as Operation | undefined)
      : undefined;
    if (!template || !operation) return this.checkUnmatched(observed);

    const base = ['paths', template, documentedMethod, 'responses'];
    const status = String(observed.status);
    let entry: ResponseObject | Reference | undefined = operation.responses[status];
    if (!entry) return [`status ${status} is not documented for ${method.toUpperCase()} ${template}`];
    let responsePointer = [...base, status];
    if ('$ref' in entry) {
      const name = entry.$ref.split('/').pop()!;
      responsePointer = ['components', 'responses', name];
      entry = this.document.components.responses[name];
    }
    // a HEAD answer is its GET's headers with no body at all
    const bodyProblems =
      method === 'head'
        ? observed.body.length > 0
          ? ['a HEAD answer carried a body']
          : []
        : this.checkBody(entry, responsePointer, observed);
    return [...this.checkHeaders(entry, observed), ...bodyProblems].map(
      (problem) => `${method.toUpperCase()} ${template} → ${status}: ${problem}`,
    );
  }

  /**
   * A path or method the document does not have: nothing the API offers, so the only documented
   * answers are the error shapes (404 unknown route, 405 known path with another method, 401 from
   * the authentication guarding /users/*, 429) and the JSON-body errors of body-parser.
   */
  private checkUnmatched(observed: ObservedResponse): string[] {
    const allowed = [400, 401, 404, 405, 413, 415, 429];
    const problems: string[] = [];
    if (!allowed.includes(observed.status)) problems.push(`unmatched route answered ${observed.status}`);
    const body = parseJson(observed.body);
    const asError = this.validate(pointer('components', 'schemas', 'Error'), body);
    const asRateLimit = this.validate(pointer('components', 'schemas', 'RateLimited'), body);
    if (asError && asRateLimit) problems.push(`unmatched route body is neither Error nor RateLimited: ${asError}`);
    if (observed.status === 405 && !observed.headers.allow) problems.push('405 without an Allow header');
    return problems.map((problem) => `${observed.method} ${observed.url}: ${problem}`);
  }

  private checkHeaders(response: ResponseObject, observed: ObservedResponse): string[] {
    const problems: string[] = [];
    for (const [name, declared] of Object.entries(response.headers ?? {})) {
      const header: HeaderObject =
        '$ref' in declared
          ? this.document.components.headers[(declared as Reference).$ref.split('/').pop()!]
          : declared;
      const raw = observed.headers[name.toLowerCase()];
      if (raw === undefined) {
        if (header.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      const first = Array.isArray(raw) ? raw[0] : String(raw);
      const value = header.schema.type === 'integer' && /^-?\d+$/.test(first) ? Number(first) : first;
      const validate = this.ajv.compile(header.schema);
      if (!validate(value)) problems.push(`header ${name}=${first}: ${this.ajv.errorsText(validate.errors)}`);
    }
    return problems;
  }

  private checkBody(response: ResponseObject, responsePointer: string[], observed: ObservedResponse): string[] {
    const contentType = String(observed.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    if (!response.content) {
      return observed.body.length > 0 ? [`a body was sent where none is documented (${contentType})`] : [];
    }
    const media = response.content[contentType];
    if (!media) return [`content-type "${contentType}" is not one of ${Object.keys(response.content).join(', ')}`];
    const value = contentType === 'application/json' ? parseJson(observed.body) : observed.body.toString('utf8');
    const error = this.validate(pointer(...responsePointer, 'content', contentType, 'schema'), value);
    return error ? [`body does not match the schema: ${error}`] : [];
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return Symbol('not JSON');
  }
}

let checker: ContractChecker | undefined;
const mismatches: string[] = [];

/** The mismatches seen since the last call; contract-setup.ts fails the test when there are any. */
export function takeContractMismatches(): string[] {
  return mismatches.splice(0, mismatches.length);
}

type Chunk = string | Buffer | Uint8Array;
const toBuffer = (chunk: Chunk, encoding?: unknown) =>
  typeof chunk === 'string'
    ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
    : Buffer.from(chunk);

/** The body as the client reads it: responses over 1 KB are compressed when the client accepts it (supertest does). */
function decoded(body: Buffer, encoding: unknown): Buffer {
  if (encoding === 'gzip') return gunzipSync(body);
  if (encoding === 'deflate') return inflateSync(body);
  if (encoding === 'br') return brotliDecompressSync(body);
  return body;
}

/** Records what the server sends on `res` and checks it once the response has finished. */
function observe(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((chunk: Chunk, ...rest: unknown[]) => {
    if (chunk) chunks.push(toBuffer(chunk, rest[0]));
    return write(chunk, ...rest);
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (chunk && typeof chunk !== 'function') chunks.push(toBuffer(chunk as Chunk, rest[0]));
    return end(chunk, ...rest);
  }) as ServerResponse['end'];
  const url = req.url ?? '/';
  const method = req.method ?? 'GET';
  res.on('finish', () => {
    checker ??= new ContractChecker();
    const body = decoded(Buffer.concat(chunks), res.getHeader('content-encoding'));
    const problems = checker.check({ method, url, status: res.statusCode, headers: res.getHeaders(), body });
    mismatches.push(...problems);
  });
}

/** The same app, with every response it sends checked against the document. */
export function withContractCheck(app: Express): Express {
  return new Proxy(app, {
    apply(target, thisArg, args: [IncomingMessage, ServerResponse, ...unknown[]]) {
      observe(args[0], args[1]);
      return Reflect.apply(target, thisArg, args);
    },
  });
}
