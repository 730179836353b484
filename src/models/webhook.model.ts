/**
 * Webhooks (an admin's HTTPS endpoint and the events it listens to) and their deliveries (one per
 * webhook and event, durable before the event's write answers, sent by a worker that leases it).
 */
import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { readDeadline } from './read-deadline';
import { DELIVERY_STATUSES } from '../schemas/webhook';

const webhookSchema = new Schema(
  {
    url: { type: String, required: true },
    // event names of services/events.ts (checked by the validators: models sit below services)
    events: { type: [String], required: true },
    // the HMAC key of the signatures; never part of a view after creation, never logged
    secret: { type: String, required: true },
    active: { type: Boolean, required: true, default: true },
  },
  { timestamps: true },
);
// record(): the active webhooks subscribed to one event name
webhookSchema.index({ events: 1, active: 1 });

const deliverySchema = new Schema(
  {
    webhook: { type: Schema.Types.ObjectId, ref: 'Webhook', required: true },
    eventId: { type: String, required: true },
    event: { type: String, required: true },
    blogId: { type: String, required: true },
    // the request body, serialised once so every attempt (and a replay) signs the same bytes
    body: { type: String, required: true },
    status: { type: String, required: true, enum: DELIVERY_STATUSES, default: 'pending' },
    attempts: { type: Number, required: true, default: 0 },
    nextAttemptAt: { type: Date, required: true },
    leaseUntil: { type: Date, default: null },
    lastStatusCode: { type: Number, default: null },
    lastError: { type: String, default: null },
    occurredAt: { type: Date, required: true },
    // set by a replay: the day of retries counts from then, not from the delivery's creation
    retryingSince: { type: Date },
  },
  { timestamps: true },
);
// unique: recording an event twice (a retry, two instances) makes one delivery per webhook
deliverySchema.index({ webhook: 1, eventId: 1 }, { unique: true });
// the worker's claim: due pending deliveries, oldest first; ordering per (webhook, blog)
deliverySchema.index({ status: 1, nextAttemptAt: 1 });
deliverySchema.index({ webhook: 1, blogId: 1, status: 1, occurredAt: 1 });
// an admin's list of one webhook's recent deliveries
deliverySchema.index({ webhook: 1, createdAt: -1 });

export type Webhook = InferSchemaType<typeof webhookSchema>;
export type WebhookDocument = HydratedDocument<Webhook>;
webhookSchema.plugin(readDeadline);
export const WebhookModel = model('Webhook', webhookSchema);
export type Delivery = InferSchemaType<typeof deliverySchema>;
deliverySchema.plugin(readDeadline);
export const DeliveryModel = model('WebhookDelivery', deliverySchema);
