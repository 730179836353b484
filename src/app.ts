/**
 * createApp(deps) builds the Express application: the same way for the server and for tests.
 * It neither connects nor listens; server.ts does that.
 */
import compression from 'compression';
import cookieParser from 'cookie-parser';
import cors from 'cors';
import express, { Router, type Express } from 'express';
import type { Store } from 'express-rate-limit';
import helmet from 'helmet';
import { API_BASE_PATH, type Config } from './config';
import type { ReadinessCheck } from './controllers/health.controller';
import { LocalAuthChanges, type AuthChanges } from './lib/auth-changes';
import { pingDatabase } from './lib/database';
import type { Logger } from './lib/logger';
import { createMailer, type Mailer } from './lib/mailer';
import { createMetrics, type AppMetrics } from './lib/metrics';
import { authenticate } from './middlewares/authenticate';
import { warnUnlistedOrigins } from './middlewares/cors-warning';
import { errorHandler, notFoundHandler } from './middlewares/error-handler';
import { measureRequests, recordRefusals } from './middlewares/metrics';
import { createLoginThrottle } from './middlewares/login-throttle';
import { createMailThrottle } from './middlewares/mail-throttle';
import { requireVerifiedEmail } from './middlewares/require-verified-email';
import { staticFiles } from './middlewares/static-files';
import { unicodeJsonBody, utf8Json } from './middlewares/unicode-body';
import { methodNotAllowed } from './middlewares/method-not-allowed';
import { createRateLimiter } from './middlewares/rate-limit';
import { REQUEST_ID_HEADER, requestLogger } from './middlewares/request-logger';
import { buildOpenApiDocument } from './openapi/document';
import { feedRoutes } from './routes/feed.routes';
import { HEALTH_PATHS, healthRoutes } from './routes/health.routes';
import { METRICS_PATH, metricsRoutes } from './routes/metrics.routes';
import { DOCS_ASSETS_PATH } from './routes/v1/docs.routes';
import { v1Routes } from './routes/v1';
import { createAccountEmailService } from './services/account-email.service';
import { createAccountService } from './services/account.service';
import { createBlogService } from './services/blog.service';
import { createCounterRepair, type CounterRepair } from './services/counter-repair';
import { createWebhookEventRecorder } from './services/webhook-events';
import { createWebhookService } from './services/webhook.service';
import { createPreviewLinks } from './services/preview-links';
import { createTrashService } from './services/trash.service';
import { createCursorCodec } from './lib/list-cursor';
import { userCacheFor } from './lib/user-cache';
import { createEngagementService } from './services/engagement.service';
import { createFeedService } from './services/feed.service';
import type { EventRecorder } from './services/events';
import { createSessionService } from './services/session.service';
import {
  createBannerStorage,
  LOCAL_BANNERS_URL_PATH,
  localBannersDirectory,
  type BannerStorage,
} from './services/storage';
import { createUserService } from './services/user.service';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** Shared rate-limit store (Redis) for several instances; in-memory when absent. */
  rateLimitStore?: Store;
  /** Shared stores (Redis) for the failed-login counts, per account and per IP; in-memory when absent. */
  loginThrottleStores?: { perAccount: Store; perIp: Store };
  /** Shared stores (Redis) for the mail throttle's counts, per address and per IP; in-memory when absent. */
  mailThrottleStores?: { perAddress: Store; perAddressOfUser: Store; perIp: Store };
  /**
   * Where mail goes; built from the configuration when absent (SMTP_URL, .data/mail in development, else off).
   * Tests pass one writing to a folder of theirs, or with a short deadline.
   */
  mailer?: Mailer;
  /** Where banners go; chosen from the configuration when absent (Cloudinary, or the local uploads folder). */
  storage?: BannerStorage;
  /** /readyz checks besides (or replacing, by name) the MongoDB ping; server.ts adds `redis` when REDIS_URL is set. */
  readinessChecks?: Record<string, ReadinessCheck>;
  /** True once graceful shutdown has begun: /readyz then answers 503 so load balancers drain this instance. */
  isShuttingDown?: () => boolean;
  /** Metrics for GET /metrics; a registry of this app's own when absent. server.ts passes one watching MongoDB and Redis. */
  metrics?: AppMetrics;
  /** False when the process cannot recover by itself (the database watchdog gave up): /healthz then answers 503. */
  isLive?: () => boolean;
  /**
   * Where logouts, profile and role changes and deletions are announced, for the cache of session checks
   * to drop what they change; server.ts passes one shared through Redis when REDIS_URL is set. This
   * process's listeners only when absent.
   */
  authChanges?: AuthChanges;
  /** Where blogs whose counters a failed write may have left off are recounted; one of this app's own when absent. */
  counterRepair?: CounterRepair;
  /** Where blog and comment changes are recorded for webhooks (services/events.ts); the real recorder when absent. */
  events?: EventRecorder;
}

/**
 * Security headers for JSON responses: what still protects a JSON body (no MIME sniffing, HTTPS only,
 * never framed, not readable cross-origin without CORS, no content loaded from elsewhere) with a short
 * policy. Left out, because they only act on HTML documents a browser renders, which this API does not
 * serve outside /docs: Cross-Origin-Opener-Policy, Origin-Agent-Cluster, Referrer-Policy,
 * X-DNS-Prefetch-Control, X-Download-Options (IE8), X-Permitted-Cross-Domain-Policies (Flash, Acrobat)
 * and X-XSS-Protection (turns off a filter of old browsers). See docs/performance.md.
 */
export const JSON_API_SECURITY_HEADERS = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'self'"], frameAncestors: ["'none'"] } },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
} as const;

/** Bodies smaller than this go uncompressed: the gzip framing would eat most of the saving. */
const COMPRESSION_THRESHOLD_BYTES = 1024;

/** How long a browser may keep a preflight's answer instead of asking again before each call: 10 minutes. */
const CORS_PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The files served with an extension whose 200 compression marks (text); the API's own paths have none. */
const TEXT_FILE = /\.(?:json|xml|html|css|js|map|txt|svg)$/i;

/**
 * What the compression middleware may compress, and so marks `Vary: Accept-Encoding`: text by its type. A 304
 * has no type (Express drops it) yet must repeat the Vary of the 200 it stands for (RFC 9110 §15.4.5), or a
 * cache refreshing its stored gzip copy from the 304 could serve it to a client that cannot read gzip. A 304
 * of the API (JSON, the feeds' XML) or of a text file is marked; one of an image (a banner, the reference
 * page's icons) is not, as its 200 is not.
 */
const compressible: compression.CompressionFilter = (req, res) => {
  if (res.statusCode !== 304) return compression.filter(req, res);
  const { path } = req as express.Request;
  return !/\.[^/]*$/.test(path) || TEXT_FILE.test(path);
};

/** A readiness probe must answer before its prober gives up (Docker's HEALTHCHECK waits 5 s). */
const READINESS_CHECK_TIMEOUT_MS = 2000;

export function createApp({
  config,
  logger,
  rateLimitStore,
  loginThrottleStores,
  mailThrottleStores,
  mailer,
  storage = createBannerStorage(config.storage),
  readinessChecks = {},
  isShuttingDown = () => false,
  metrics = createMetrics(),
  isLive = () => true,
  authChanges = new LocalAuthChanges(),
  counterRepair = createCounterRepair({ logger, settleMs: config.database.operationTimeoutMs }),
  events = createWebhookEventRecorder(),
}: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);

  const sessions = createSessionService(config.jwt, authChanges, logger);
  const users = createUserService({
    bcryptCost: config.bcryptCost,
    authChanges,
    requireCurrentPassword: config.requireCurrentPassword,
    verifiesEmail: config.emailVerification !== 'off',
  });
  const accounts = createAccountService({ authChanges });
  // the authors that blogs show, kept as the session checks are (AUTH_CACHE_TTL_MS, lib/user-cache.ts)
  const authorCache = userCacheFor<Record<string, unknown>>(config.authCacheTtlMs, authChanges);
  const blogs = createBlogService({
    storage,
    cursors: createCursorCodec(config.jwt.accessSecret),
    logger,
    accounts,
    events,
    authors: authorCache,
  });
  const trash = createTrashService({
    blogs,
    storage,
    logger,
    events,
    retentionMs: config.maintenance.trashRetentionMs,
  });
  const engagement = createEngagementService({ blogs, accounts, counterRepair, events });
  const accountEmail = createAccountEmailService({
    mailer:
      mailer ??
      createMailer({
        ...config.mail,
        logger,
        sent: metrics.mailSent,
      }),
    siteUrl: config.siteUrl,
    publicUrl: config.publicUrl,
    emailVerification: config.emailVerification,
    authChanges,
    logger,
  });

  // Built once: the routes' 405 answers and the metrics' route templates both read it.
  const openApiDocument = buildOpenApiDocument();

  // First, so that every request counts, the refused and the static ones too.
  if (config.metrics.enabled) {
    const staticPrefixes = [LOCAL_BANNERS_URL_PATH, `${API_BASE_PATH}${DOCS_ASSETS_PATH}`];
    app.use(measureRequests(metrics, { paths: openApiDocument.paths, staticPrefixes }));
  }
  app.use(requestLogger({ logger, quietPaths: [...HEALTH_PATHS, METRICS_PATH] }));
  app.use(helmet(JSON_API_SECURITY_HEADERS));
  // The API reference is an HTML page: it gets helmet's whole set of document headers but
  // upgrade-insecure-requests: over plain HTTP on any host but localhost (http://vm:3000/api/v1/docs) that
  // would rewrite every asset of the page to https and leave it blank. HTTPS deployments upgrade with HSTS.
  app.use(
    `${API_BASE_PATH}/docs`,
    helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }),
  );
  // Browsers ignore Cross-Origin-Opener-Policy from such untrustworthy origins and log a console error for it
  // on every page; it is sent where it can apply, over HTTPS (req.secure follows TRUST_PROXY behind a proxy).
  app.use(`${API_BASE_PATH}/docs`, (req, res, next) => {
    if (!req.secure) res.removeHeader('Cross-Origin-Opener-Policy');
    next();
  });
  // JSON over 1 KB (a page of blogs is ~130 KB of HTML content) is compressed for clients that accept it.
  app.use(compression({ threshold: COMPRESSION_THRESHOLD_BYTES, filter: compressible }));
  app.use(warnUnlistedOrigins({ allowed: config.corsOrigins, logger }));
  app.use(
    cors({
      origin: config.corsOrigins.length > 0 ? [...config.corsOrigins] : false,
      credentials: true,
      // what a SPA may read: its rate-limit budget, and the request id to quote when reporting a problem
      exposedHeaders: [
        'RateLimit-Policy',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
        REQUEST_ID_HEADER,
      ],
      // the origins are fixed at start-up: a browser may keep a preflight's answer (Chromium keeps it 2 hours at most)
      maxAge: CORS_PREFLIGHT_MAX_AGE_SECONDS,
    }),
  );
  // Banners stored on local disk are static files, not API calls: outside the rate limit (a page of blogs
  // loads a banner each), and readable by a SPA on another origin (helmet's default would forbid it).
  app.use(
    LOCAL_BANNERS_URL_PATH,
    (_req, res, next) => {
      res.set('Cross-Origin-Resource-Policy', 'cross-origin');
      next();
    },
    ...staticFiles(localBannersDirectory(config.storage.uploadsDir), { immutable: true, maxAge: '365d', index: false }),
  );
  // Probes come before the rate limit: a busy client IP (or a proxy's) must not make an instance look dead.
  app.use(
    healthRoutes({
      readinessChecks: { mongodb: pingDatabase, ...readinessChecks },
      isShuttingDown,
      isLive,
      checkTimeoutMs: READINESS_CHECK_TIMEOUT_MS,
    }),
  );
  // Scraped every few seconds, like the probes: outside the rate limit. Turned off, it is a plain 404.
  app.use(
    config.metrics.enabled
      ? metricsRoutes({ metrics, token: config.metrics.token })
      : Router().get(METRICS_PATH, notFoundHandler),
  );
  app.use(createRateLimiter({ ...config.rateLimit, store: rateLimitStore, logger }));
  // Feed readers and crawlers look at the root; the feeds read the database, so they come after the rate limit.
  app.use(feedRoutes({ feeds: createFeedService(), config }));
  app.use(utf8Json, express.json({ limit: config.jsonBodyLimit }), unicodeJsonBody);
  app.use(cookieParser());

  app.use(
    API_BASE_PATH,
    v1Routes({
      config,
      sessions,
      users,
      accounts,
      blogs,
      engagement,
      webhooks: createWebhookService({ allowPrivate: config.webhooksAllowPrivate }),
      trash,
      previewLinks: createPreviewLinks({
        blogs,
        secret: config.jwt.accessSecret,
        publicUrl: config.publicUrl,
        siteUrl: config.siteUrl,
      }),
      authenticate: authenticate(sessions, { cacheTtlMs: config.authCacheTtlMs, authChanges }),
      loginThrottle: createLoginThrottle({ ...config.loginThrottle, stores: loginThrottleStores, logger }),
      mailThrottle: createMailThrottle({ windowMs: config.loginThrottle.windowMs, stores: mailThrottleStores, logger }),
      accountEmail,
      verifiedEmail: requireVerifiedEmail(config.emailVerification),
      // run in this order when an account is deleted, after its sessions and before the user record
      accountCleanups: [blogs.deleteBlogsOfAuthor, trash.deleteTrashOfAuthor, engagement.deleteEngagementOfUser],
      openApiDocument,
    }),
  );
  app.use(methodNotAllowed(openApiDocument.paths));
  app.use(notFoundHandler);
  if (config.metrics.enabled) app.use(recordRefusals(metrics));
  app.use(errorHandler(logger, { retryAfterSeconds: config.database.retryAfterSeconds }));
  return app;
}
