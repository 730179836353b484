/** /webhooks: admins' HTTPS endpoints for events, their deliveries and replays (docs/admin-guide.md). */
import {
  DeliveryPageSchema,
  DeliveryResponseSchema,
  DeliverySchema,
  EVENT_NAMES,
  WebhookCreatedSchema,
  WebhookPageSchema,
  WebhookSchema,
  newWebhookBody,
} from '../schemas/webhook';
import {
  BEARER,
  COMMON_RESPONSES,
  EXAMPLE_ID,
  JSON_BODY_RESPONSES,
  json,
  ref,
  respond,
  schemaRef,
  withDatabaseResponses,
} from './components';
import type { ContractPart, ParameterObject, Paths } from './types';

const exampleWebhook = {
  _id: EXAMPLE_ID,
  url: 'https://hooks.example.com/blog',
  events: ['blog.published', 'blog.deleted'],
  active: true,
  createdAt: '2026-11-24T10:00:00.000Z',
  updatedAt: '2026-11-24T10:00:00.000Z',
};
const exampleDelivery = {
  _id: EXAMPLE_ID,
  webhook: EXAMPLE_ID,
  eventId: `blog.published:${EXAMPLE_ID}:2026-11-24T10:05:00.000Z`,
  event: 'blog.published',
  status: 'delivered',
  attempts: 1,
  nextAttemptAt: '2026-11-24T10:05:00.000Z',
  lastStatusCode: 204,
  lastError: null,
  occurredAt: '2026-11-24T10:05:00.000Z',
  createdAt: '2026-11-24T10:05:00.000Z',
  updatedAt: '2026-11-24T10:05:01.000Z',
};
const idParameter = (name: string, what: string): ParameterObject => ({
  name,
  in: 'path',
  required: true,
  description: `The ${what}'s _id`,
  schema: schemaRef('ObjectId'),
});
const webhookId = idParameter('webhookId', 'webhook');
const adminOnly = { '401': ref('responses', 'Unauthenticated'), '403': ref('responses', 'Forbidden') };
const page = [ref('parameters', 'Limit'), ref('parameters', 'Offset')];
const SIGNING =
  'Each delivery is a POST of `{id, event, occurredAt, data}` (`data`: the Blog or Comment as the API shows it) with ' +
  '`Webhook-Id` (the event id, the same on retries: drop repeats), `Webhook-Event` and `Webhook-Signature: ' +
  't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the secret>`. A 2xx within 10 s delivers it; ' +
  'anything else is retried with a doubling backoff (10 s up to an hour) for a day. Redirects are not followed.';

const webhookPaths: Paths = {
  '/webhooks/': {
    post: {
      operationId: 'registerWebhook',
      tags: ['Webhooks'],
      summary: 'Register an endpoint for events (admin)',
      description: `${SIGNING} ${EVENT_NAMES.join(', ')}.`,
      security: BEARER,
      requestBody: {
        required: true,
        content: json(newWebhookBody.schema, { url: exampleWebhook.url, events: exampleWebhook.events }),
      },
      responses: {
        '201': respond(
          'Registered; the secret is shown this once',
          json(schemaRef('WebhookCreated'), { webhook: exampleWebhook, secret: 'kSx9…' }),
        ),
        '400': ref('responses', 'BadRequestOrValidation'),
        ...adminOnly,
        ...JSON_BODY_RESPONSES,
        ...COMMON_RESPONSES,
      },
    },
    get: {
      operationId: 'listWebhooks',
      tags: ['Webhooks'],
      summary: 'The registered webhooks, newest first (admin)',
      security: BEARER,
      parameters: page,
      responses: {
        '200': respond(
          'One page of webhooks',
          json(schemaRef('WebhookPage'), { limit: 20, offset: 0, total: 1, webhooks: [exampleWebhook] }),
        ),
        '400': ref('responses', 'ValidationFailed'),
        ...adminOnly,
        ...COMMON_RESPONSES,
      },
    },
  },
  '/webhooks/{webhookId}': {
    delete: {
      operationId: 'deleteWebhook',
      tags: ['Webhooks'],
      summary: 'Delete a webhook and its deliveries (admin)',
      security: BEARER,
      parameters: [webhookId],
      responses: {
        '204': respond('Deleted; no body'),
        '400': ref('responses', 'ValidationFailed'),
        ...adminOnly,
        '404': ref('responses', 'NotFound'),
        ...COMMON_RESPONSES,
      },
    },
  },
  '/webhooks/{webhookId}/deliveries': {
    get: {
      operationId: 'listWebhookDeliveries',
      tags: ['Webhooks'],
      summary: "A webhook's deliveries, newest first (admin)",
      security: BEARER,
      parameters: [webhookId, ...page],
      responses: {
        '200': respond(
          'One page of deliveries',
          json(schemaRef('WebhookDeliveryPage'), { limit: 20, offset: 0, total: 1, deliveries: [exampleDelivery] }),
        ),
        '400': ref('responses', 'ValidationFailed'),
        ...adminOnly,
        '404': ref('responses', 'NotFound'),
        ...COMMON_RESPONSES,
      },
    },
  },
  '/webhooks/{webhookId}/deliveries/{deliveryId}/replay': {
    post: {
      operationId: 'replayWebhookDelivery',
      tags: ['Webhooks'],
      summary: 'Send a delivery again, soon (admin)',
      security: BEARER,
      parameters: [webhookId, idParameter('deliveryId', 'delivery')],
      responses: {
        '202': respond(
          'Pending again; the worker sends it within seconds',
          json(schemaRef('WebhookDeliveryResponse'), { delivery: { ...exampleDelivery, status: 'pending' } }),
        ),
        '400': ref('responses', 'BadRequestOrValidation'),
        ...adminOnly,
        '404': ref('responses', 'NotFound'),
        ...COMMON_RESPONSES,
      },
    },
  },
};

/** Every operation of /webhooks uses the database. */
export const webhookContract: ContractPart = {
  paths: withDatabaseResponses(webhookPaths),
  schemas: {
    Webhook: { ...WebhookSchema, example: exampleWebhook },
    WebhookPage: WebhookPageSchema,
    WebhookCreated: WebhookCreatedSchema,
    WebhookDelivery: { ...DeliverySchema, example: exampleDelivery },
    WebhookDeliveryPage: DeliveryPageSchema,
    WebhookDeliveryResponse: DeliveryResponseSchema,
  },
  tags: [{ name: 'Webhooks', description: 'HTTPS endpoints told of publications, updates, deletions and comments' }],
};
