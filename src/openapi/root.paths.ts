/** GET /, the document itself and its reference page. */
import { API_VERSION } from '../config';
import { COMMON_RESPONSES, json, respond } from './components';
import type { ContractPart, Paths } from './types';

const rootPaths: Paths = {
  '/': {
    get: {
      operationId: 'getStatus',
      tags: ['Root'],
      summary: 'Service status, version and where this reference lives',
      security: [],
      responses: {
        '200': respond(
          'The service is up',
          json(
            {
              type: 'object',
              required: ['message', 'status', 'version', 'docs', 'timestamp'],
              additionalProperties: false,
              properties: {
                message: { type: 'string' },
                status: { type: 'string' },
                version: { type: 'string', const: API_VERSION },
                docs: { type: 'string', format: 'uri', description: 'Absolute URL of GET /docs' },
                timestamp: { type: 'string', format: 'date-time' },
              },
            },
            {
              message: 'Blog API is running',
              status: 'ok',
              version: API_VERSION,
              docs: 'http://localhost:3000/api/v1/docs',
              timestamp: '2026-11-22T18:34:02.036Z',
            },
          ),
        ),
        ...COMMON_RESPONSES,
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['Root'],
      summary: 'This OpenAPI 3.1 document',
      security: [],
      responses: {
        '200': respond('The document', json({ type: 'object', required: ['openapi', 'info', 'paths'] })),
        ...COMMON_RESPONSES,
      },
    },
  },
  '/docs': {
    get: {
      operationId: 'getReferencePage',
      tags: ['Root'],
      summary: 'Interactive reference page for this document (Swagger UI, served without any CDN)',
      security: [],
      responses: {
        '200': respond('An HTML page; its scripts and styles are served from /api/v1/docs/assets/', {
          'text/html': { schema: { type: 'string' } },
        }),
        ...COMMON_RESPONSES,
      },
    },
  },
};

export const rootContract: ContractPart = {
  paths: rootPaths,
  tags: [{ name: 'Root', description: 'Status and this reference' }],
};
