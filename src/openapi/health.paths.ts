/**
 * GET /healthz and GET /readyz, served at the app's root (not under /api/v1) and before the rate
 * limit: their responses carry no RateLimit headers and never answer 429.
 */
import { AT_ROOT } from './components';
import type { ContractPart, JsonSchema, Paths, ResponseObject } from './types';

const checks: JsonSchema = {
  type: 'object',
  description: 'Each dependency by name (mongodb; redis when REDIS_URL is set)',
  additionalProperties: { type: 'string', enum: ['up', 'down'] },
};
const probeResponse = (description: string, schema: JsonSchema, example: unknown): ResponseObject => ({
  description,
  headers: {
    'Cache-Control': { description: 'Probes are never cached', schema: { type: 'string', const: 'no-store' } },
  },
  content: { 'application/json': { schema, example } },
});

const healthPaths: Paths = {
  '/healthz': {
    servers: AT_ROOT,
    get: {
      operationId: 'getHealth',
      tags: ['Operations'],
      summary: 'Liveness: the process is up; no dependency is asked',
      description:
        'A database outage never fails this probe. Only a database connection wedged beyond repair while the database ' +
        'answers fresh connections does (503), so that the orchestrator restarts the instance.',
      security: [],
      responses: {
        '200': probeResponse(
          'Alive',
          {
            type: 'object',
            required: ['status'],
            additionalProperties: false,
            properties: { status: { const: 'ok' } },
          },
          { status: 'ok' },
        ),
        '503': probeResponse(
          'Restart me: the database watchdog could not reopen a wedged connection',
          {
            type: 'object',
            required: ['status'],
            additionalProperties: false,
            properties: { status: { const: 'unhealthy' }, reason: { type: 'string' } },
          },
          { status: 'unhealthy', reason: 'database connection wedged; restart this instance' },
        ),
      },
    },
  },
  '/readyz': {
    servers: AT_ROOT,
    get: {
      operationId: 'getReadiness',
      tags: ['Operations'],
      summary: 'Readiness: MongoDB (and Redis when configured) answer, and shutdown has not begun',
      security: [],
      responses: {
        '200': probeResponse(
          'Ready for traffic',
          {
            type: 'object',
            required: ['status', 'checks'],
            additionalProperties: false,
            properties: { status: { const: 'ready' }, checks },
          },
          { status: 'ready', checks: { mongodb: 'up', redis: 'up' } },
        ),
        '503': probeResponse(
          'Not ready: a dependency is down, or the instance is shutting down',
          {
            type: 'object',
            required: ['status', 'checks'],
            additionalProperties: false,
            properties: { status: { const: 'unavailable' }, reason: { type: 'string' }, checks },
          },
          { status: 'unavailable', checks: { mongodb: 'up', redis: 'down' } },
        ),
      },
    },
  },
};

export const healthContract: ContractPart = {
  paths: healthPaths,
  tags: [{ name: 'Operations', description: 'Probes for orchestrators and load balancers, at the root' }],
};
