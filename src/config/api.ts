/**
 * Where the API is mounted and which version of its contract it serves. Fixed, not read from the
 * environment: app.ts mounts the routes here, and the OpenAPI document and GET /api/v1/ report them.
 */
export const API_BASE_PATH = '/api/v1';
export const API_VERSION = '1.0.0';
