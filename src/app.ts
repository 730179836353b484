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
import type { Logger } from './lib/logger';
import { authenticate } from './middlewares/authenticate';
import { errorHandler, notFoundHandler } from './middlewares/error-handler';
import { createRateLimiter } from './middlewares/rate-limit';
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
}

export function createApp({ config, logger, rateLimitStore, storage = createBannerStorage(config.storage) }: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);

  const sessions = createSessionService(config.jwt);
  const users = createUserService({ bcryptCost: config.bcryptCost });
  const blogs = createBlogService({ storage, logger });

  app.use(helmet());
  app.use(
    cors({
      origin: config.corsOrigins.length > 0 ? [...config.corsOrigins] : false,
      credentials: true,
      exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
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
  app.use(createRateLimiter({ ...config.rateLimit, store: rateLimitStore }));
  app.use(express.json({ limit: config.jsonBodyLimit }));
  app.use(cookieParser());

  app.use(
    '/api/v1',
    v1Routes({
      config,
      sessions,
      users,
      blogs,
      authenticate: authenticate(sessions),
      // run in this order when an account is deleted, after its sessions and before the user record
      accountCleanups: [blogs.deleteBlogsOfAuthor, deleteEngagementOfUser],
    }),
  );
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
