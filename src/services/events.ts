/**
 * What the API tells the outside world happened (webhooks listen to these). Services that change blogs or
 * comments call `record` after their write succeeds; the recorder stores the event durably before it
 * returns, once per `id`: recording the same id again (a retry, or two instances racing after a scheduled
 * publication) is a no-op, so every event is delivered once whatever the number of instances.
 */
import type { EventName } from '../schemas/webhook';

export { EVENT_NAMES, type EventName } from '../schemas/webhook';

export interface DomainEvent {
  /** Deterministic per occurrence, e.g. `blog.published:<blogId>:<publishedAt ISO>`: the key that makes recording idempotent. */
  id: string;
  name: EventName;
  /** The blog the event is about: deliveries for one blog are sent in order. */
  blogId: string;
  /** The API's own shape of the subject (a Blog view, a Comment view), as JSON. */
  payload: unknown;
  occurredAt: Date;
}

export interface EventRecorder {
  record(event: DomainEvent): Promise<void>;
}

/** The recorder of an app without webhooks (and of tests that do not look at events). */
export const ignoreEvents: EventRecorder = { record: async () => undefined };
