/**
 * Prometheus metrics (prom-client), served at GET /metrics (docs/operations-metrics.md lists each one).
 *
 * The app's own metrics live in a registry per createMetrics() call, that is per app instance: tests
 * build many apps in one process, and each must count only its own requests. The process metrics
 * (CPU, heap, GC, event-loop lag) belong to the process, not to an app, so they live in one registry
 * per process, started by the first scrape: their event-loop and GC observers then run only where
 * someone reads them, not in every app a test builds.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds; from a fast cached read (a few ms) to the slow tail of an upload or a cold query. */
const HTTP_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const MONGODB_DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

export type UploadRefusalReason = 'too_large' | 'missing' | 'invalid_image' | 'malformed' | 'storage_unavailable';

export interface AppMetrics {
  registry: Registry;
  http: {
    requests: Counter<'method' | 'route' | 'status'>;
    duration: Histogram<'method' | 'route' | 'status'>;
    inFlight: Gauge;
  };
  rateLimitRefusals: Counter;
  uploads: {
    bytes: Counter;
    refusals: Counter<'reason'>;
  };
  authenticationFailures: Counter<'reason'>;
  /** Messages the API tried to send, by purpose (reset-password, verify-email) and result (sent, failed). */
  mailSent: Counter<'purpose' | 'result'>;
  /** How late the scheduler published each scheduled post (blog_publish_lateness_seconds). */
  publishLateness: Histogram;
  /** Webhook delivery attempts by outcome (delivered, retry, failed): never by URL or event id. */
  webhookDeliveries: Counter<'outcome'>;
  mongodb: {
    commandDuration: Histogram<'command' | 'outcome'>;
    connectionsCreated: Counter;
    connectionsClosed: Counter<'reason'>;
    connectionsCheckedOut: Gauge;
    checkoutWait: Histogram;
    checkoutFailures: Counter<'reason'>;
  };
  /** Reports whether the Redis client of the shared rate limit is connected (rate_limit_redis_up). */
  watchRedis(isReady: () => boolean): void;
  /** The text a scrape answers: this app's metrics and the process's. */
  scrape(): Promise<string>;
  contentType: string;
}

/**
 * `commandDurations`: list mongodb_command_duration_seconds, which only the driver's command events
 * (MONGODB_COMMAND_METRICS) fill; without them a scrape does not offer a histogram that stays empty.
 */
export function createMetrics({ commandDurations = false } = {}): AppMetrics {
  const registry = new Registry();
  const registers = [registry];

  return {
    registry,
    http: {
      requests: new Counter({
        name: 'http_requests_total',
        help: 'Requests answered, by method, route template and status',
        labelNames: ['method', 'route', 'status'] as const,
        registers,
      }),
      duration: new Histogram({
        name: 'http_request_duration_seconds',
        help: 'Time from the request to the end of its response, by method, route template and status',
        labelNames: ['method', 'route', 'status'] as const,
        buckets: HTTP_DURATION_BUCKETS,
        registers,
      }),
      inFlight: new Gauge({ name: 'http_requests_in_flight', help: 'Requests being served now', registers }),
    },
    rateLimitRefusals: new Counter({
      name: 'rate_limit_refusals_total',
      help: 'Requests refused with 429 by the rate limit',
      registers,
    }),
    uploads: {
      bytes: new Counter({
        name: 'banner_upload_bytes_total',
        help: 'Bytes of banner images accepted and stored',
        registers,
      }),
      refusals: new Counter({
        name: 'banner_upload_refusals_total',
        help: 'Blog forms refused because of their banner, by reason',
        labelNames: ['reason'] as const,
        registers,
      }),
    },
    authenticationFailures: new Counter({
      name: 'auth_failures_total',
      help: 'Refused authentication attempts, by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
    mailSent: new Counter({
      name: 'mail_sent_total',
      help: 'Messages sent (or written, without SMTP_URL) or failed, by purpose and result; never by address',
      labelNames: ['purpose', 'result'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome: delivered (2xx), retry (to be tried again), failed (given up)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    publishLateness: new Histogram({
      name: 'blog_publish_lateness_seconds',
      help: "Time between a scheduled post's publishAt and its publication by the scheduler",
      buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 300],
      registers,
    }),
    mongodb: {
      commandDuration: new Histogram({
        name: 'mongodb_command_duration_seconds',
        help: 'MongoDB command round trips, by command name and outcome (succeeded or failed)',
        labelNames: ['command', 'outcome'] as const,
        buckets: MONGODB_DURATION_BUCKETS,
        registers: commandDurations ? registers : [],
      }),
      connectionsCreated: new Counter({
        name: 'mongodb_pool_connections_created_total',
        help: 'Connections the MongoDB pool opened',
        registers,
      }),
      connectionsClosed: new Counter({
        name: 'mongodb_pool_connections_closed_total',
        help: 'Connections the MongoDB pool closed, by reason',
        labelNames: ['reason'] as const,
        registers,
      }),
      connectionsCheckedOut: new Gauge({
        name: 'mongodb_pool_connections_checked_out',
        help: 'MongoDB connections in use by an operation now',
        registers,
      }),
      checkoutWait: new Histogram({
        name: 'mongodb_pool_checkout_wait_seconds',
        help: 'Time an operation waited for a pool connection',
        buckets: MONGODB_DURATION_BUCKETS,
        registers,
      }),
      checkoutFailures: new Counter({
        name: 'mongodb_pool_checkout_failures_total',
        help: 'Operations that got no pool connection, by reason (timeout, connectionError, poolClosed)',
        labelNames: ['reason'] as const,
        registers,
      }),
    },
    watchRedis(isReady) {
      // registered only here: an instance without REDIS_URL has no such gauge, rather than a false 0
      new Gauge({
        name: 'rate_limit_redis_up',
        help: 'Whether the Redis client of the shared rate limit is connected (1) or not (0); absent without REDIS_URL',
        registers,
        collect() {
          this.set(isReady() ? 1 : 0);
        },
      });
    },
    async scrape() {
      return (await registry.metrics()) + (await processRegistry().metrics());
    },
    contentType: registry.contentType,
  };
}

let processMetrics: Registry | undefined;

/** The process's own metrics (process_*, nodejs_*: CPU, memory, heap, GC, event-loop lag, handles). */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}
