/**
 * Webhooks as admins use them: registration and its address rules, deliveries to a real HTTP receiver
 * on 127.0.0.1 (WEBHOOKS_ALLOW_PRIVATE=true) with a signature the documented snippet verifies, retries,
 * order per post, replays, the address checked again at delivery, and exactly one request per event
 * with two instances' workers and schedulers racing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { createPublishScheduler } from '../src/services/publish-scheduler';
import { createDeliveryWorker } from '../src/services/webhook-delivery';
import { createWebhookEventRecorder } from '../src/services/webhook-events';
import { DeliveryModel, WebhookModel } from '../src/models/webhook.model';
import { agent } from './helpers/agent';
import { createBlog } from './helpers/blogs';
import { expectFieldError } from './helpers/expectations';
import { useTestApp } from './helpers/test-app';

const ctx = useTestApp({ env: { WEBHOOKS_ALLOW_PRIVATE: 'true' } });
const api = ctx.api;
const admin = ctx.signedInAdmin();
const reader = ctx.signedInUser();

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver: records each request, and answers the statuses queued (then 200). */
function startReceiver() {
  const received: Received[] = [];
  const statuses: number[] = [];
  /** How long it takes to answer (a slow receiver). */
  const answering = { delayMs: 0 };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      setTimeout(() => res.writeHead(statuses.shift() ?? 200).end(), answering.delayMs);
    });
  });
  const listening = new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    statuses,
    answering,
    url: async () => {
      await listening;
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const receiver = startReceiver();
afterAll(() => receiver.close());
beforeEach(async () => {
  receiver.received.length = 0;
  receiver.statuses.length = 0;
  receiver.answering.delayMs = 0;
  await Promise.all([WebhookModel.deleteMany({}), DeliveryModel.deleteMany({})]);
});

/** What docs/admin-guide.md shows a receiver doing: recompute the HMAC of "<t>.<body>" and compare. */
function verify(secret: string, header: string, body: string): boolean {
  const { t, v1 } = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return v1 !== undefined && timingSafeEqual(Buffer.from(v1), Buffer.from(expected));
}

const worker = (
  options: { allowPrivate?: boolean; deliveries?: Counter<'outcome'>; retryBaseMs?: number; leaseMs?: number } = {},
) => createDeliveryWorker({ logger: ctx.logger, allowPrivate: true, intervalMs: 60_000, retryBaseMs: 50, ...options });

async function register(events = ['blog.published', 'blog.updated']) {
  const answer = await api
    .as(admin)
    .post('/webhooks/')
    .send({ url: await receiver.url(), events });
  expect(answer.status).toBe(201);
  return answer.body as { webhook: { _id: string }; secret: string };
}

const deliveriesOf = async (webhookId: string) =>
  (await api.as(admin).get(`/webhooks/${webhookId}/deliveries`)).body.deliveries as Array<Record<string, unknown>>;

describe('registering', () => {
  it('answers the webhook and its secret once; the list never shows the secret', async () => {
    const { webhook, secret } = await register();

    expect(secret).toMatch(/^[\w-]{43}$/);
    expect(webhook).toMatchObject({ url: await receiver.url(), events: ['blog.published', 'blog.updated'] });
    const listed = await api.as(admin).get('/webhooks/');
    expect(listed.body).toMatchObject({ total: 1, webhooks: [{ _id: webhook._id, active: true }] });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it.each([
    ['an unknown event', { events: ['blog.exploded'] }],
    ['no event', { events: [] }],
    ['an event twice', { events: ['blog.published', 'blog.published'] }],
    ['a URL that is no URL', { url: 'not a url' }],
  ])('refuses %s with 400', async (_case, fields) => {
    const body = { url: 'https://hooks.example.com/a', events: ['blog.published'], ...fields };
    expectFieldError(await api.as(admin).post('/webhooks/').send(body), Object.keys(fields)[0]!);
  });

  it('refuses a secret too short without echoing it back', async () => {
    const body = { url: 'https://hooks.example.com/a', events: ['blog.published'], secret: 'short-secret' };
    const answer = await api.as(admin).post('/webhooks/').send(body);
    expectFieldError(answer, 'secret');
    expect(answer.body.errors.secret.value).toBe('');
    expect(JSON.stringify(answer.body)).not.toContain('short-secret');
  });

  it('names the http:// and https:// schemes when private receivers are allowed', async () => {
    const answer = await api
      .as(admin)
      .post('/webhooks/')
      .send({ url: 'ftp://hooks.example.com/a', events: ['blog.published'] });
    expectFieldError(answer, 'url');
    expect(answer.body.errors.url.msg).toBe('URL must be an http:// or https:// URL');
  });

  it.each([
    ['plain HTTP', 'http://hooks.example.com/a', /https:\/\//],
    ['a loopback address', 'https://127.0.0.1/a', /127\.0\.0\.1, which is not a public address/],
    ['a name that resolves to loopback', 'https://localhost/a', /localhost resolves to .*not a public address/],
    ['a private address', 'https://[::ffff:10.0.0.7]/a', /not a public address/],
  ])('refuses %s without WEBHOOKS_ALLOW_PRIVATE', async (_case, url, message) => {
    const strict = agent(ctx.buildApp({ WEBHOOKS_ALLOW_PRIVATE: 'false' }).app);
    const answer = await strict
      .as(admin)
      .post('/webhooks/')
      .send({ url, events: ['blog.published'] });

    expectFieldError(answer, 'url');
    expect(answer.body.errors.url.msg).toMatch(message);
    expect(answer.body.errors.url.msg).toMatch(/WEBHOOKS_ALLOW_PRIVATE=true\)$/);
  });

  it('deletes a webhook with its deliveries', async () => {
    const { webhook } = await register();
    await createBlog(ctx.app, admin, { status: 'published' });

    expect((await api.as(admin).delete(`/webhooks/${webhook._id}`)).status).toBe(204);
    expect(await DeliveryModel.countDocuments({ webhook: webhook._id })).toBe(0);
    expect((await api.as(admin).get(`/webhooks/${webhook._id}/deliveries`)).status).toBe(404);
  });
});

describe('delivering', () => {
  it('posts the event with a signature the documented check verifies, once', async () => {
    const { webhook, secret } = await register();
    const blog = await createBlog(ctx.app, admin, { status: 'published' });

    expect(await worker().runOnce()).toEqual(['delivered']);
    expect(await worker().runOnce()).toEqual([]);
    expect(receiver.received).toHaveLength(1);
    const [{ headers, body }] = receiver.received;
    expect(verify(secret, String(headers['webhook-signature']), body)).toBe(true);
    expect(verify('another secret of enough length', String(headers['webhook-signature']), body)).toBe(false);
    const payload = JSON.parse(body);
    expect(payload).toMatchObject({ event: 'blog.published', id: headers['webhook-id'], data: { _id: blog._id } });
    expect(headers['webhook-event']).toBe('blog.published');
    expect(await deliveriesOf(webhook._id)).toMatchObject([
      { event: 'blog.published', status: 'delivered', attempts: 1, lastStatusCode: 200, lastError: null },
    ]);
  });

  it('retries a failed delivery with backoff until it is answered with a 2xx, counting each outcome', async () => {
    const { webhook } = await register();
    receiver.statuses.push(500);
    await createBlog(ctx.app, admin, { status: 'published' });
    const counted = new Counter({
      name: 'test_deliveries',
      help: 'x',
      labelNames: ['outcome'],
      registers: [new Registry()],
    });

    const slowRetry = worker({ deliveries: counted, retryBaseMs: 60_000 });
    expect(await slowRetry.runOnce()).toEqual(['retry']);
    expect(await deliveriesOf(webhook._id)).toMatchObject([
      { status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'answered 500' },
    ]);
    expect(await slowRetry.runOnce()).toEqual([]); // not due before its backoff
    expect(await slowRetry.runOnce(new Date(Date.now() + 61_000))).toEqual(['delivered']);

    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[0]!.headers['webhook-id']).toBe(receiver.received[1]!.headers['webhook-id']);
    expect((await counted.get()).values.map(({ labels, value }) => [labels.outcome, value])).toEqual([
      ['retry', 1],
      ['delivered', 1],
    ]);
  });

  it("sends a post's events in order: a later one waits while an earlier one is retried", async () => {
    await register();
    receiver.statuses.push(500);
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    await api.as(admin).put(`/blogs/${blog._id}`).field('title', 'Renamed').expect(200);

    expect(await worker().runOnce()).toEqual(['retry', 'waiting']);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await worker().runOnce()).sort()).toEqual(['delivered', 'waiting']);
    expect(await worker().runOnce()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await worker().runOnce()).toEqual(['delivered']);

    expect(receiver.received.map(({ body }) => JSON.parse(body).event)).toEqual([
      'blog.published',
      'blog.published',
      'blog.updated',
    ]);
  });

  it('replays a delivery on request, with the same Webhook-Id', async () => {
    const { webhook } = await register();
    await createBlog(ctx.app, admin, { status: 'published' });
    await worker().runOnce();
    const [delivery] = await deliveriesOf(webhook._id);

    const replayed = await api.as(admin).post(`/webhooks/${webhook._id}/deliveries/${delivery!._id}/replay`);
    expect(replayed.status).toBe(202);
    expect(replayed.body.delivery).toMatchObject({ _id: delivery!._id, status: 'pending' });
    expect(await worker().runOnce()).toEqual(['delivered']);
    expect(receiver.received.map(({ headers }) => headers['webhook-id'])).toEqual([
      delivery!.eventId,
      delivery!.eventId,
    ]);
    const unknown = await api.as(admin).post(`/webhooks/${webhook._id}/deliveries/${webhook._id}/replay`);
    expect(unknown.status).toBe(404);
  });

  it('checks the address again when delivering: a private one is refused then, and nothing is sent', async () => {
    const { webhook } = await register();
    await createBlog(ctx.app, admin, { status: 'published' });

    expect(await worker({ allowPrivate: false }).runOnce()).toEqual(['retry']);
    expect(receiver.received).toHaveLength(0);
    const [delivery] = await deliveriesOf(webhook._id);
    expect(delivery).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: 'not an https:// URL' });
  });

  it('refuses at delivery an https name that now resolves to a private address, before connecting', async () => {
    const port = new URL(await receiver.url()).port;
    await WebhookModel.create({
      url: `https://localhost:${port}/hook`,
      events: ['blog.published'],
      secret: 's'.repeat(16),
    });
    await createBlog(ctx.app, admin, { status: 'published' });

    expect(await worker({ allowPrivate: false }).runOnce()).toEqual(['retry']);
    expect(receiver.received).toHaveLength(0);
    const delivery = await DeliveryModel.findOne().lean();
    expect(delivery?.lastError).toMatch(/^localhost resolves to (127\.0\.0\.1|::1)$/);
  });

  it('sends each event once with two instances racing: their schedulers over one due post, their workers over its delivery', async () => {
    const { webhook } = await register(['blog.published']);
    const blog = await createBlog(ctx.app, admin, { publishAt: new Date(Date.now() + 1_000).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const scheduler = () =>
      createPublishScheduler({ events: createWebhookEventRecorder(), logger: ctx.logger, intervalMs: 60_000 });

    const published = await Promise.all([scheduler().runOnce(), scheduler().runOnce()]);
    const sent = await Promise.all([worker().runOnce(), worker().runOnce(), worker().runOnce()]);

    expect(published.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(sent.flat()).toEqual(['delivered']);
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ event: 'blog.published', data: { _id: blog._id } });
    expect(await deliveriesOf(webhook._id)).toHaveLength(1);
  });
});

describe('a slow receiver', () => {
  it('gets each event once when a delivery waits in its batch past its lease and another instance claims it', async () => {
    await register(['blog.published']);
    await Promise.all(Array.from({ length: 16 }, () => createBlog(ctx.app, admin, { status: 'published' })));
    receiver.answering.delayMs = 400;
    // four go at once, each answered in 400 ms: the last four wait 1200 ms for their turn, past a lease of
    // 1000 ms (which a send in flight renews), and a second instance claims them at 1050 ms
    const first = worker({ leaseMs: 1000 }).runOnce();
    await new Promise((resolve) => setTimeout(resolve, 1050));
    const second = worker({ leaseMs: 1000 }).runOnce();

    const outcomes = [...(await first), ...(await second)];

    const ids = receiver.received.map(({ headers }) => headers['webhook-id']);
    expect(new Set(ids).size).toBe(16);
    expect(ids).toHaveLength(16);
    expect(outcomes.filter((outcome) => outcome === 'delivered')).toHaveLength(16);
    expect(await DeliveryModel.countDocuments({ status: 'delivered', attempts: 1 })).toBe(16);
  });
});

describe('who may', () => {
  it('refuses a regular user every webhook route with 403', async () => {
    const { webhook } = await register();
    const answers = await Promise.all([
      api.as(reader).get('/webhooks/'),
      api
        .as(reader)
        .post('/webhooks/')
        .send({ url: 'https://hooks.example.com/a', events: ['blog.published'] }),
      api.as(reader).delete(`/webhooks/${webhook._id}`),
      api.as(reader).get(`/webhooks/${webhook._id}/deliveries`),
    ]);
    expect(answers.map(({ status }) => status)).toEqual([403, 403, 403, 403]);
  });
});
