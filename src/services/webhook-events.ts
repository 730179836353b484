/**
 * The real EventRecorder: one pending delivery per active webhook subscribed to the event, inserted
 * before record() returns. The unique (webhook, eventId) index makes recording the same event again a
 * no-op, so two instances (or a retry) never send an event twice.
 */
import { DeliveryModel, WebhookModel } from '../models/webhook.model';
import { isDuplicateKeyError } from '../lib/mongo-errors';
import type { DomainEvent, EventRecorder } from './events';

/** The body every delivery of this event sends: the event's name, id and time around the API's own shape. */
export function deliveryBody(event: DomainEvent): string {
  return JSON.stringify({
    id: event.id,
    event: event.name,
    occurredAt: event.occurredAt.toISOString(),
    data: event.payload,
  });
}

export function createWebhookEventRecorder(): EventRecorder {
  return {
    async record(event) {
      const webhooks = await WebhookModel.find({ events: event.name, active: true }, { _id: 1 }).lean();
      if (webhooks.length === 0) return;
      const body = deliveryBody(event);
      const deliveries = webhooks.map((webhook) => ({
        webhook: webhook._id,
        eventId: event.id,
        event: event.name,
        blogId: event.blogId,
        body,
        nextAttemptAt: new Date(),
        occurredAt: event.occurredAt,
      }));
      try {
        await DeliveryModel.insertMany(deliveries, { ordered: false });
      } catch (error) {
        // already recorded (for some or all webhooks): the others were inserted by ordered:false
        if (!isDuplicateKeyError(error)) throw error;
      }
    },
  };
}
