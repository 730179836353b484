/**
 * Webhooks' fields, said once: the events they listen to, the views admins see (a webhook, a delivery),
 * and the registration body. The secret is shown once, in the registration's answer, never in a view.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { ParamSchema } from 'express-validator';
import { DateTimeRef, ObjectIdRef, bodyOf, componentRef, optional, pageOf, stringEnum, textField } from './common';

/** What the API tells webhooks about (services/events.ts records them). */
export const EVENT_NAMES = [
  'blog.published',
  'blog.updated',
  'blog.unpublished',
  'blog.deleted',
  'comment.created',
  'comment.deleted',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const WEBHOOK_LIMITS = { url: 2000, secret: { min: 16, max: 200 } } as const;

export const WebhookSchema = Type.Object(
  {
    _id: ObjectIdRef,
    url: Type.String({ format: 'uri', maxLength: WEBHOOK_LIMITS.url }),
    events: Type.Array(stringEnum(EVENT_NAMES), { minItems: 1, uniqueItems: true }),
    active: Type.Boolean(),
    createdAt: DateTimeRef,
    updatedAt: DateTimeRef,
  },
  { additionalProperties: false },
);
export type WebhookView = Static<typeof WebhookSchema>;

export const DeliverySchema = Type.Object(
  {
    _id: ObjectIdRef,
    webhook: ObjectIdRef,
    eventId: Type.String({ description: 'The event id, sent as Webhook-Id: the same on every attempt and replay' }),
    event: stringEnum(EVENT_NAMES),
    status: stringEnum(DELIVERY_STATUSES, {
      description: 'pending (waiting for its next attempt), delivered (a 2xx answer), failed (given up after a day)',
    }),
    attempts: Type.Integer({ minimum: 0 }),
    nextAttemptAt: DateTimeRef,
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'The last attempt’s HTTP status' }),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed' }),
    occurredAt: DateTimeRef,
    createdAt: DateTimeRef,
    updatedAt: DateTimeRef,
  },
  { additionalProperties: false },
);
export type DeliveryView = Static<typeof DeliverySchema>;

const WebhookRef = componentRef('Webhook', WebhookSchema);
const DeliveryRef = componentRef('WebhookDelivery', DeliverySchema);
export const WebhookPageSchema = pageOf('webhooks', WebhookRef);
export const DeliveryPageSchema = pageOf('deliveries', DeliveryRef);
export const WebhookCreatedSchema = Type.Object(
  {
    webhook: WebhookRef,
    secret: Type.String({ description: 'The HMAC key of the signatures: shown this once, keep it' }),
  },
  { additionalProperties: false },
);
export const DeliveryResponseSchema = Type.Object({ delivery: DeliveryRef }, { additionalProperties: false });

/** `events`: a non-empty list of event names, each at most once. */
const events = {
  schema: Type.Array(stringEnum(EVENT_NAMES), {
    minItems: 1,
    maxItems: EVENT_NAMES.length,
    uniqueItems: true,
    description: 'The events to send to this endpoint',
  }),
  rules: {
    exists: { errorMessage: 'Events are required', bail: true },
    isArray: {
      options: { min: 1, max: EVENT_NAMES.length },
      errorMessage: `Events must be a list of 1 to ${EVENT_NAMES.length} event names`,
      bail: true,
    },
    custom: {
      options: (value: unknown[]) =>
        value.every((name) => typeof name === 'string' && (EVENT_NAMES as readonly string[]).includes(name)) &&
        new Set(value).size === value.length,
      errorMessage: `Events must be distinct names among: ${EVENT_NAMES.join(', ')}`,
    },
  } as ParamSchema,
};

/** POST /webhooks. The address rules (HTTPS, public) need DNS: the service checks them. */
export const newWebhookBody = bodyOf({
  url: textField('URL', {
    minLength: 1,
    maxLength: WEBHOOK_LIMITS.url,
    format: 'uri',
    description:
      'An https:// URL that resolves to public addresses only (http:// and private addresses only with WEBHOOKS_ALLOW_PRIVATE=true)',
  }),
  events,
  secret: optional(
    textField('Secret', {
      minLength: WEBHOOK_LIMITS.secret.min,
      maxLength: WEBHOOK_LIMITS.secret.max,
      description: 'The HMAC key of the signatures; 32 random bytes (base64url) are made when absent',
    }),
  ),
});
