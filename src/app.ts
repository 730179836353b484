/**
 * createApp(deps) builds the Express application: the same way for the server and for tests.
 * It neither connects nor listens; server.ts does that.
 */
import cookieParser from 'cookie-parser';
import cors from 'cors';
import express, { type Express } from 'express';
import type { Store } from 'express-rate-limit';
import helmet from 'helmet';
import type { Config } from './config';
import type { ReadinessCheck } from './controllers/health.controller';
import { pingDatabase } from './lib/database';
import type { Logger } from './lib/logger';
import { authenticate } from './middlewares/authenticate';
import { errorHandler, notFoundHandler } from './middlewares/error-handler';
import { methodNotAllowed } from './middlewares/method-not-allowed';
import { createRateLimiter } from './middlewares/rate-limit';
import { REQUEST_ID_HEADER, requestLogger } from './middlewares/request-logger';
import { API_BASE_PATH, buildOpenApiDocument } from './openapi/document';
import { HEALTH_PATHS, healthRoutes } from './routes/health.routes';
import { v1Routes } from './routes/v1';
import { createBlogService } from './services/blog.service';
import { deleteEngagementOfUser } from './services/engagement.service';
import { createSessionService } from './services/session.service';
import { createBannerStorage, LOCAL_BANNERS_URL_PATH, localBannersDirectory, type BannerStorage } from './services/storage';
import { createUserService } from './services/user.service';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** Shared rate-limit store (Redis) for several instances; in-memory when absent. */
  rateLimitStore?: Store;
  /** Where banners go; chosen from the configuration when absent (Cloudinary, or the local uploads folder). */
  storage?: BannerStorage;
  /** /readyz checks besides (or replacing, by name) the MongoDB ping; server.ts adds `redis` when REDIS_URL is set. */
  readinessChecks?: Record<string, ReadinessCheck>;
  /** True once graceful shutdown has begun: /readyz then answers 503 so load balancers drain this instance. */
  isShuttingDown?: () => boolean;
  /** False when the process cannot recover by itself (the database watchdog gave up): /healthz then answers 503. */
  isLive?: () => boolean;
}

/** A readiness probe must answer before its prober gives up (Docker's HEALTHCHECK waits 5 s). */
const READINESS_CHECK_TIMEOUT_MS = 2000;

export function createApp({
  config,
  logger,
  rateLimitStore,
  storage = createBannerStorage(config.storage),
  readinessChecks = {},
  isShuttingDown = () => false,
  isLive = () => true,
}: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);

  const sessions = createSessionService(config.jwt);
  const users = createUserService({ bcryptCost: config.bcryptCost });
  const blogs = createBlogService({ storage, logger });

  app.use(requestLogger({ logger, quietPaths: HEALTH_PATHS }));
  app.use(helmet());
  app.use(
    cors({
      origin: config.corsOrigins.length > 0 ? [...config.corsOrigins] : false,
      credentials: true,
      // what a SPA may read: its rate-limit budget, and the request id to quote when reporting a problem
      exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', REQUEST_ID_HEADER],
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
    express.static(localBannersDirectory(config.storage.uploadsDir), { immutable: true, maxAge: '365d', index: false }),
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
  app.use(createRateLimiter({ ...config.rateLimit, store: rateLimitStore, logger }));
  app.use(express.json({ limit: config.jsonBodyLimit }));
  app.use(cookieParser());

  const openApiDocument = buildOpenApiDocument();
  app.use(
    API_BASE_PATH,
    v1Routes({
      config,
      sessions,
      users,
      blogs,
      authenticate: authenticate(sessions),
      // run in this order when an account is deleted, after its sessions and before the user record
      accountCleanups: [blogs.deleteBlogsOfAuthor, deleteEngagementOfUser],
      openApiDocument,
    }),
  );
  app.use(methodNotAllowed(openApiDocument.paths));
  app.use(notFoundHandler);
  app.use(errorHandler(logger, { retryAfterSeconds: config.database.retryAfterSeconds }));
  return app;
}
