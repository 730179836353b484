/**
 * The OpenAPI 3.1 shapes of the document, from openapi3-ts's `oas31` model. Where this document always
 * says more than OpenAPI requires (every operation has an id, a tag, a summary and responses; every
 * header and parameter a schema; the document always has paths and those components), the type says so
 * too, so readers of the document (the app, the tests) need no checks for what cannot be missing.
 */
import type { oas31 } from 'openapi3-ts';

/** A JSON Schema 2020-12 object, as OpenAPI 3.1 embeds it. */
export type JsonSchema = oas31.SchemaObject;
export type Reference = oas31.ReferenceObject;
export type HeaderObject = oas31.HeaderObject & { schema: JsonSchema };
export type ParameterObject = oas31.ParameterObject & { schema: JsonSchema };

export interface MediaType extends oas31.MediaTypeObject {
  schema: JsonSchema;
  examples?: Record<string, oas31.ExampleObject & { value: unknown }>;
}
export interface RequestBody extends oas31.RequestBodyObject {
  content: Record<string, MediaType>;
}
export interface ResponseObject extends oas31.ResponseObject {
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaType>;
}
export type SecurityScheme = oas31.SecuritySchemeObject;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface Operation extends oas31.OperationObject {
  operationId: string;
  tags: string[];
  summary: string;
  requestBody?: RequestBody;
  responses: Record<string, ResponseObject | Reference>;
}

/**
 * `servers` overrides the base path for one path: `{ servers: [{ url: '/' }] }` documents a route at
 * the app's root, outside the API's base path (health checks, for instance).
 */
export type PathItem = Omit<oas31.PathItemObject, HttpMethod> & Partial<Record<HttpMethod, Operation>>;
export type Paths = Record<string, PathItem>;

export interface Components extends oas31.ComponentsObject {
  schemas: Record<string, JsonSchema>;
  responses: Record<string, ResponseObject>;
  parameters: Record<string, ParameterObject>;
  headers: Record<string, HeaderObject>;
  securitySchemes: Record<string, SecurityScheme>;
}

export interface OpenApiDocument extends oas31.OpenAPIObject {
  /** A field of OpenAPI 3.1 the oas31 model leaves out. */
  jsonSchemaDialect?: string;
  servers: oas31.ServerObject[];
  tags: oas31.TagObject[];
  paths: Paths;
  components: Components;
}

/** One resource's share of the document: its paths, the schemas only it uses, and its tags. Every resource module exports one. */
export interface ContractPart {
  paths: Paths;
  schemas?: Record<string, JsonSchema>;
  tags: oas31.TagObject[];
}
