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
import { methodNotAllowed } from './middlewares/method-not-allowed';
import { createRateLimiter } from './middlewares/rate-limit';
import { API_BASE_PATH, buildOpenApiDocument } from './openapi/document';
import { v1Routes } from './routes/v1';
import { createSessionService } from './services/session.service';
import { createUserService } from './services/user.service';

export interface AppDeps {
  config: Config;
  logger: Logger;
  /** Shared rate-limit store (Redis) for several instances; in-memory when absent. */
  rateLimitStore?: Store;
}

export function createApp({ config, logger, rateLimitStore }: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);

  const sessions = createSessionService(config.jwt);
  const users = createUserService({ bcryptCost: config.bcryptCost });

  app.use(helmet());
  app.use(
    cors({
      origin: config.corsOrigins.length > 0 ? [...config.corsOrigins] : false,
      credentials: true,
      exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
    }),
  );
  app.use(createRateLimiter({ ...config.rateLimit, store: rateLimitStore }));
  app.use(express.json({ limit: config.jsonBodyLimit }));
  app.use(cookieParser());

  const openApiDocument = buildOpenApiDocument();
  app.use(
    API_BASE_PATH,
    v1Routes({ config, sessions, users, authenticate: authenticate(sessions), accountCleanups: [], openApiDocument }),
  );
  app.use(API_BASE_PATH, methodNotAllowed(openApiDocument.paths));
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
