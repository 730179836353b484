/**
 * The few OpenAPI 3.1 shapes this project writes. Schemas are JSON Schema 2020-12 objects, kept as
 * plain records: the document is data, checked by the tests (Ajv) and by schemathesis, not by tsc.
 */
export type JsonSchema = { [keyword: string]: unknown };

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface MediaType {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
  encoding?: Record<string, { contentType: string }>;
}

export interface HeaderObject {
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, MediaType>;
  links?: Record<string, { operationId: string; parameters?: Record<string, string>; description?: string }>;
}

export type Reference = { $ref: string };

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  description?: string;
  required?: boolean;
  schema: JsonSchema;
  example?: unknown;
}

export interface Operation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<ParameterObject | Reference>;
  requestBody?: { required?: boolean; description?: string; content: Record<string, MediaType> };
  responses: Record<string, ResponseObject | Reference>;
}

/**
 * `servers` overrides the base path for one path: `{ servers: [{ url: '/' }] }` documents a route at
 * the app's root, outside /api/v1 (health checks, for instance).
 */
export type PathItem = Partial<Record<HttpMethod, Operation>> & { servers?: Array<{ url: string; description?: string }> };
export type Paths = Record<string, PathItem>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  jsonSchemaDialect?: string;
  info: { title: string; version: string; description?: string };
  servers: Array<{ url: string; description?: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Paths;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    parameters: Record<string, ParameterObject>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, Record<string, unknown>>;
  };
}

/** One resource's share of the document: its paths, the schemas only it uses, and its tag. */
export interface ContractPart {
  paths: Paths;
  schemas?: Record<string, JsonSchema>;
  tags: Array<{ name: string; description: string }>;
}
