/**
 * The OpenAPI 3.1 document of /api/v1: the one contract, assembled from one module per resource.
 * Served at GET /api/v1/openapi.json; tests/contract/*.test.ts keep it and the routes in step
 * and validate every response the tests receive against it.
 */
import { API_BASE_PATH, API_VERSION } from '../config';
import { authContract } from './auth.paths';
import { blogContract } from './blogs.paths';
import { headers, JSON_BODY_RESPONSES, parameters, ref, responses, schemas, securitySchemes } from './components';
import { previewContract } from './previews.paths';
import { trashContract } from './trash.paths';
import { webhookContract } from './webhooks.paths';
import { feedContract } from './feed.paths';
import { healthContract } from './health.paths';
import { metricsContract } from './metrics.paths';
import { rootContract } from './root.paths';
import {
  HTTP_METHODS,
  type ContractPart,
  type HttpMethod,
  type OpenApiDocument,
  type Operation,
  type Paths,
} from './types';
import { userContract } from './users.paths';

/** Re-exported for the document's readers (the request metrics, the contract tests): where paths without servers live. */
export { API_BASE_PATH };

export interface DocumentedOperation {
  /** The key in `paths`, relative to its server URL. */
  template: string;
  /** The path as the app serves it: the server URL (the path's own or /api/v1) and the template. */
  fullPath: string;
  method: HttpMethod;
  operation: Operation;
}

/** `/api/v1/users/{userId}` → /^\/api\/v1\/users\/[^/]+\/?$/ ; a trailing slash is optional, as in Express. */
export function pathPattern(template: string): RegExp {
  const escaped = template
    .replace(/\/$/, '')
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

/** Every operation of the document, each with the path the app really serves it on. */
export function operationsOf(paths: Paths): DocumentedOperation[] {
  return Object.entries(paths).flatMap(([template, item]) => {
    const base = (item.servers?.[0]?.url ?? API_BASE_PATH).replace(/\/$/, '');
    return HTTP_METHODS.filter((method) => item[method]).map((method) => ({
      template,
      fullPath: `${base}${template}`,
      method,
      operation: item[method] as Operation,
    }));
  });
}

/**
 * A write without a request body refuses one with content (validators/common.validators.ts, noBody): 415 for
 * another type than JSON, 413 for one over the JSON limit, 400 naming each field of a JSON one. Said here once
 * for every such operation, so that none documents less than it answers.
 */
function withBodyRefusals(paths: Paths): Paths {
  const refusing = (operation: Operation): Operation => ({
    ...operation,
    responses: { '400': ref('responses', 'BadRequestOrValidation'), ...operation.responses, ...JSON_BODY_RESPONSES },
  });
  return Object.fromEntries(
    Object.entries(paths).map(([template, item]) => {
      const writes = HTTP_METHODS.filter((method) => method !== 'get' && item[method] && !item[method].requestBody);
      return [template, { ...item, ...Object.fromEntries(writes.map((method) => [method, refusing(item[method]!)])) }];
    }),
  ) as Paths;
}

/** One part per resource module, in the order the reference page shows their tags. */
const parts: ContractPart[] = [
  rootContract,
  authContract,
  userContract,
  blogContract,
  previewContract,
  trashContract,
  webhookContract,
  feedContract,
  healthContract,
  metricsContract,
];

export function buildOpenApiDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Blog API',
      version: API_VERSION,
      description:
        'Users, blog posts, comments and likes over JSON. Access tokens go in `Authorization: Bearer`; the refresh ' +
        'token travels only in the `refreshToken` cookie (Path=/api/v1/auth). Every response carries the ' +
        'RateLimit-* headers; any operation may answer 429 `{error}` and 500 `{code: "ServerError", message}`; ' +
        'those that use the database also 503 `{code: "ServiceUnavailable", message}` with Retry-After while it cannot be reached. ' +
        'A write without a request body takes none: no body, or `{}` as JSON, is fine; any other is refused, 415 when ' +
        'it is not JSON and 400 `ValidationError` naming each field when it is.',
    },
    servers: [{ url: API_BASE_PATH, description: 'This server' }],
    tags: parts.flatMap((part) => part.tags),
    paths: withBodyRefusals(Object.assign({}, ...parts.map((part) => part.paths)) as Paths),
    components: {
      schemas: Object.assign({ ...schemas }, ...parts.map((part) => part.schemas ?? {})),
      responses,
      parameters,
      headers,
      securitySchemes,
    },
  };
}
