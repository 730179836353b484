/**
 * Sends webhook deliveries (docs/admin-guide.md, "Webhooks"). Every instance runs a worker; each delivery
 * is claimed with a conditional update (a lease of LEASE_MS), renewed just before it is sent, so one
 * instance sends it at a time, and its outcome is written only by the holder of the lease. A delivery waits while an older one of the same
 * webhook and post is still pending, so a post's events arrive in order. A failure (an answer other than
 * 2xx, a timeout, a refused address) is retried with a doubling backoff for a day, then the delivery is
 * `failed`. An instance killed between sending and writing the outcome leaves the lease to expire: that
 * delivery is sent again, with the same `Webhook-Id`, which receivers use to drop repeats.
 *
 * The request connects only to the addresses checked here (the lookup is the check), so a name that
 * resolved to a public address at registration and to a private one now is refused now.
 */
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import pLimit from 'p-limit';
import type { Counter } from 'prom-client';
import type { Types } from 'mongoose';
import { backgroundPasses } from '../lib/background-passes';
import type { Logger } from '../lib/logger';
import { isPublicAddress } from '../lib/public-address';
import { DeliveryModel, WebhookModel } from '../models/webhook.model';

/** How long a claimed delivery is this instance's: well above the request deadline. */
const LEASE_MS = 60_000;
/** The deadline of one attempt, connection to answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How long a delivery is retried before it is `failed`. */
const RETRY_FOR_MS = 24 * 60 * 60_000;
/** The longest wait between attempts. */
const MAX_BACKOFF_MS = 60 * 60_000;
/** Deliveries claimed per batch, batches per pass, and deliveries sent at once. */
const PER_PASS = 50;
const MAX_BATCHES = 40;
const CONCURRENCY = 4;
/** How long a delivery waits for an older one of its post before it looks again. */
const ORDER_WAIT_MS = 1_000;

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed';

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: what the Webhook-Signature header carries. */
export function signatureHeader(secret: string, body: string, at = new Date()): string {
  const timestamp = Math.floor(at.getTime() / 1000);
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

class RefusedAddressError extends Error {}

/** DNS lookups that refuse any private address: the connection goes only where the check looked. */
function publicOnlyLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find(({ address }) => !isPublicAddress(address));
      if (refused) return callback(new RefusedAddressError(`${hostname} resolves to ${refused.address}`), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

interface Attempt {
  statusCode?: number;
  error?: string;
}

/** One POST of the body, within DELIVERY_TIMEOUT_MS; redirects are not followed (they count as failures). */
function post(url: URL, headers: Record<string, string>, body: string, allowPrivate: boolean): Promise<Attempt> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && url.protocol !== 'https:') return Promise.resolve({ error: 'not an https:// URL' });
  if (!allowPrivate && isIP(host) && !isPublicAddress(host))
    return Promise.resolve({ error: `${host} is not a public address` });
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        lookup: allowPrivate ? undefined : publicOnlyLookup(),
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        agent: false,
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ statusCode: response.statusCode }));
        response.on('error', (error) => resolve({ statusCode: response.statusCode, error: error.message }));
      },
    );
    request.on('error', (error) =>
      resolve({ error: error.name === 'AbortError' ? `no answer within ${DELIVERY_TIMEOUT_MS} ms` : error.message }),
    );
    request.end(body);
  });
}

export interface DeliveryWorkerOptions {
  logger: Logger;
  /** WEBHOOKS_ALLOW_PRIVATE: http:// and private addresses may be reached (development, tests). */
  allowPrivate: boolean;
  /** webhook_deliveries_total, by outcome. */
  deliveries?: Counter<'outcome'>;
  intervalMs: number;
  /** The first retry's wait, doubled at each failure (tests shorten it). */
  retryBaseMs?: number;
  /** How long a claim holds (tests shorten it). */
  leaseMs?: number;
}

export function createDeliveryWorker({
  logger,
  allowPrivate,
  deliveries,
  intervalMs,
  retryBaseMs = 10_000,
  leaseMs = LEASE_MS,
}: DeliveryWorkerOptions) {
  const inParallel = pLimit(CONCURRENCY);

  /** Takes one due delivery for this instance, or null when none is due. */
  async function claim(now: Date) {
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const delivery = await DeliveryModel.findOneAndUpdate(
      {
        status: 'pending',
        nextAttemptAt: { $lte: now },
        $or: [{ leaseUntil: null }, { leaseUntil: { $lte: now } }],
      },
      { $set: { leaseUntil } },
      { new: true, sort: { nextAttemptAt: 1, _id: 1 }, timestamps: false },
    ).lean();
    return delivery ? { ...delivery, leaseUntil } : null;
  }

  type Claimed = NonNullable<Awaited<ReturnType<typeof claim>>>;

  /**
   * Renews the lease just before sending, if it is still this instance's: a delivery that waited its turn
   * behind the others of its batch may have outlived its lease, and another instance claimed and sent it.
   */
  async function renew(delivery: Claimed): Promise<boolean> {
    const leaseUntil = new Date(Date.now() + leaseMs);
    const { modifiedCount } = await DeliveryModel.updateOne(
      { _id: delivery._id, leaseUntil: delivery.leaseUntil },
      { $set: { leaseUntil } },
      { timestamps: false },
    );
    if (modifiedCount === 0) return false;
    delivery.leaseUntil = leaseUntil;
    return true;
  }

  /** Writes what happened, if the lease is still this instance's. */
  const settle = (delivery: Claimed, update: Record<string, unknown>) =>
    DeliveryModel.updateOne({ _id: delivery._id, leaseUntil: delivery.leaseUntil }, update);

  /** Whether an older delivery of the same webhook and post still waits: this one goes after it. */
  const olderPending = (delivery: Claimed) =>
    DeliveryModel.exists({
      _id: { $ne: delivery._id },
      webhook: delivery.webhook,
      blogId: delivery.blogId,
      status: 'pending',
      $or: [
        { occurredAt: { $lt: delivery.occurredAt } },
        { occurredAt: delivery.occurredAt, _id: { $lt: delivery._id } },
      ],
    });

  async function attempt(delivery: Claimed): Promise<DeliveryOutcome | 'waiting'> {
    // another instance has it now: its outcome is that one's to write and count
    if (!(await renew(delivery))) return 'waiting';
    if (await olderPending(delivery)) {
      await settle(delivery, { $set: { leaseUntil: null, nextAttemptAt: new Date(Date.now() + ORDER_WAIT_MS) } });
      return 'waiting';
    }
    const webhook = await WebhookModel.findById(delivery.webhook, 'url secret active').lean();
    if (!webhook || !webhook.active) {
      await settle(delivery, { $set: { status: 'failed', leaseUntil: null, lastError: 'the webhook is gone' } });
      return 'failed';
    }
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'blog-api-webhooks/1',
      'Webhook-Id': delivery.eventId,
      'Webhook-Event': delivery.event,
      'Webhook-Signature': signatureHeader(webhook.secret, delivery.body),
    };
    const result = await post(new URL(webhook.url), headers, delivery.body, allowPrivate);
    const attempts = delivery.attempts + 1;
    const common = { attempts, leaseUntil: null, lastStatusCode: result.statusCode ?? null };
    if (result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300) {
      await settle(delivery, { $set: { ...common, status: 'delivered', lastError: null } });
      return 'delivered';
    }
    const lastError = result.error ?? `answered ${result.statusCode}`;
    const retryAt = Date.now() + Math.min(retryBaseMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);
    const since = (delivery.retryingSince ?? delivery.createdAt).getTime();
    const givenUp = retryAt - since > RETRY_FOR_MS;
    await settle(delivery, {
      $set: { ...common, lastError, status: givenUp ? 'failed' : 'pending', nextAttemptAt: new Date(retryAt) },
    });
    logger.warn(`webhook delivery ${String(delivery._id)} failed (attempt ${attempts}): ${lastError}`, {
      event: delivery.event,
    });
    return givenUp ? 'failed' : 'retry';
  }

  /** Claims up to PER_PASS due deliveries and sends them, a few at once. */
  async function sendBatch(now: Date): Promise<Array<DeliveryOutcome | 'waiting'>> {
    const claimed: Claimed[] = [];
    for (let taken = 0; taken < PER_PASS; taken++) {
      const delivery = await claim(now);
      if (!delivery) break;
      claimed.push(delivery);
    }
    const outcomes = await Promise.all(claimed.map((delivery) => inParallel(() => attempt(delivery))));
    for (const outcome of outcomes) if (outcome !== 'waiting') deliveries?.inc({ outcome });
    return outcomes;
  }

  /**
   * One pass: batches until none is left due (at most MAX_BATCHES), so a thousand posts published at once
   * reach their webhooks within seconds. Answers what happened to each delivery.
   */
  async function runOnce(now = new Date()): Promise<Array<DeliveryOutcome | 'waiting'>> {
    const outcomes: Array<DeliveryOutcome | 'waiting'> = [];
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const sent = await sendBatch(now);
      outcomes.push(...sent);
      if (sent.length < PER_PASS) break;
    }
    return outcomes;
  }

  return { runOnce, ...backgroundPasses(() => runOnce(), intervalMs, logger, 'webhook delivery') };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;

/** A delivery sent again (an admin's replay): pending now, retried for a day from now, attempts kept for the record. */
export async function replayDelivery(webhookId: Types.ObjectId | string, deliveryId: string) {
  const now = new Date();
  return DeliveryModel.findOneAndUpdate(
    { _id: deliveryId, webhook: webhookId },
    { $set: { status: 'pending', nextAttemptAt: now, retryingSince: now, leaseUntil: null } },
    { new: true },
  ).lean();
}
