/**
 * Admins' webhooks: registered with the address rules (HTTPS, public addresses only, unless
 * WEBHOOKS_ALLOW_PRIVATE), listed, deleted with their deliveries; their deliveries listed and replayed.
 * Sending is the delivery worker's (webhook-delivery.ts), which checks the address again each time.
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { BadRequest, NotFound, RequestValidationError } from '../errors/http-errors';
import { isPublicAddress } from '../lib/public-address';
import { settleWithin } from '../lib/timeout';
import { DeliveryModel, WebhookModel } from '../models/webhook.model';
import { viewOf } from '../schemas/common';
import { DeliverySchema, WebhookSchema, type DeliveryView, type EventName, type WebhookView } from '../schemas/webhook';
import type { Page } from './pagination';
import { replayDelivery } from './webhook-delivery';

/** How long registration waits for DNS before it refuses the URL. */
const RESOLVE_TIMEOUT_MS = 3_000;
const TIMED_OUT = Symbol('timed out');

export interface NewWebhook {
  url: string;
  events: EventName[];
  secret?: string;
}

const webhookView = (webhook: Record<string, unknown>): WebhookView => viewOf(WebhookSchema, webhook);
const deliveryView = (delivery: Record<string, unknown>): DeliveryView =>
  viewOf(DeliverySchema, delivery, { lastStatusCode: null, lastError: null });

/** A 400 on `url`, in the shape of the other validation errors. */
const badUrl = (url: string, message: string) => RequestValidationError.forField('url', message, 'body', url);

/** What lets an admin register a receiver on the server's own network (docs/admin-guide.md#webhooks). */
const NEEDS_PRIVATE = " (http:// and private addresses need the server's WEBHOOKS_ALLOW_PRIVATE=true)";

export function createWebhookService({ allowPrivate }: { allowPrivate: boolean }) {
  /** Refuses what would reach the operator's own network: checked again at each delivery. */
  async function checkAddress(url: string): Promise<void> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw badUrl(url, 'URL must be an absolute URL');
    }
    if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:'))
      throw badUrl(
        url,
        allowPrivate ? 'URL must be an http:// or https:// URL' : `URL must be an https:// URL${NEEDS_PRIVATE}`,
      );
    if (parsed.username || parsed.password) throw badUrl(url, 'URL must not carry credentials');
    if (allowPrivate) return;
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host)
      ? [host]
      : await settleWithin(
          lookup(host, { all: true }).then((found) => found.map(({ address }) => address)),
          RESOLVE_TIMEOUT_MS,
          TIMED_OUT,
        ).catch(() => []);
    if (addresses === TIMED_OUT || addresses.length === 0)
      throw badUrl(url, `URL's host ${host} could not be resolved`);
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused)
      throw badUrl(url, `URL's host ${host} resolves to ${refused}, which is not a public address${NEEDS_PRIVATE}`);
  }

  async function findWebhook(webhookId: string) {
    const webhook = await WebhookModel.findById(webhookId).lean();
    if (!webhook) throw new NotFound('Webhook not found');
    return webhook;
  }

  return {
    async register({ url, events, secret }: NewWebhook) {
      await checkAddress(url);
      const key = secret ?? randomBytes(32).toString('base64url');
      const webhook = await WebhookModel.create({ url, events, secret: key });
      return { webhook: webhookView(webhook.toObject()), secret: key };
    },

    async list(page: Page) {
      const [total, webhooks] = await Promise.all([
        WebhookModel.countDocuments(),
        WebhookModel.find().sort({ createdAt: -1, _id: -1 }).skip(page.offset).limit(page.limit).lean(),
      ]);
      return { total, webhooks: webhooks.map(webhookView) };
    },

    /** The webhook goes, and its deliveries with it: none is sent once the answer is out. */
    async remove(webhookId: string) {
      const { deletedCount } = await WebhookModel.deleteOne({ _id: webhookId });
      if (!deletedCount) throw new NotFound('Webhook not found');
      await DeliveryModel.deleteMany({ webhook: webhookId });
    },

    async listDeliveries(webhookId: string, page: Page) {
      await findWebhook(webhookId);
      const [total, deliveries] = await Promise.all([
        DeliveryModel.countDocuments({ webhook: webhookId }),
        DeliveryModel.find({ webhook: webhookId }, '-body')
          .sort({ createdAt: -1, _id: -1 })
          .skip(page.offset)
          .limit(page.limit)
          .lean(),
      ]);
      return { total, deliveries: deliveries.map(deliveryView) };
    },

    async replay(webhookId: string, deliveryId: string) {
      const webhook = await findWebhook(webhookId);
      if (!webhook.active) throw new BadRequest('This webhook is inactive');
      const delivery = await replayDelivery(webhookId, deliveryId);
      if (!delivery) throw new NotFound('Delivery not found');
      return deliveryView(delivery);
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
