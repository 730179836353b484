/**
 * GET /metrics, served at the app's root (not under /api/v1) and before the rate limit, like the
 * probes: a scraper asking every few seconds must neither spend a client's budget nor get 429.
 * docs/operations-metrics.md lists the metrics.
 */
import { AT_ROOT } from './components';
import type { ContractPart, Paths, ResponseObject } from './types';

const errorBody = (code: string, message: string) => ({
  'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { code, message } },
});
const noStore: ResponseObject['headers'] = {
  'Cache-Control': { description: 'Never cached', schema: { type: 'string', const: 'no-store' } },
};

const scrape: ResponseObject = {
  description: 'The metrics, in the Prometheus text exposition format 0.0.4',
  headers: noStore,
  content: {
    'text/plain': {
      schema: { type: 'string' },
      example:
        '# HELP http_requests_total Requests answered, by method, route template and status\n' +
        '# TYPE http_requests_total counter\n' +
        'http_requests_total{method="GET",route="/api/v1/blogs/{slug}",status="200"} 42\n',
    },
  },
};

const metricsPaths: Paths = {
  '/metrics': {
    servers: AT_ROOT,
    get: {
      operationId: 'getMetrics',
      tags: ['Operations'],
      summary: 'Prometheus metrics of this instance: requests, refusals, MongoDB, Redis, the Node.js process',
      description:
        'Turned off with METRICS_ENABLED=false (then 404). With METRICS_TOKEN set, only a scrape sending ' +
        '`Authorization: Bearer <METRICS_TOKEN>` is answered; any other gets 401.',
      security: [{}, { metricsToken: [] }],
      responses: {
        '200': scrape,
        '401': {
          description: 'METRICS_TOKEN is set and the request did not present it (AuthenticationError)',
          headers: { 'WWW-Authenticate': { description: 'Bearer realm="metrics"', schema: { type: 'string' } } },
          content: errorBody('AuthenticationError', 'A valid metrics token is required'),
        },
        '404': {
          description: 'Metrics are turned off (METRICS_ENABLED=false)',
          content: errorBody('NotFound', 'Route GET /metrics not found'),
        },
        '500': {
          description: 'Collecting a metric failed; details go to the server log only',
          content: errorBody('ServerError', 'Internal server error'),
        },
      },
    },
  },
};

export const metricsContract: ContractPart = { paths: metricsPaths, tags: [] };
