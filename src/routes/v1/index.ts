/** Every route of /api/v1, one router per resource. */
import { Router, type RequestHandler } from 'express';
import type { Config } from '../../config';
import { createRootController } from '../../controllers/v1/root.controller';
import type { LoginThrottle } from '../../middlewares/login-throttle';
import type { OpenApiDocument } from '../../openapi/types';
import type { AccountCleanup, AccountService } from '../../services/account.service';
import type { BlogService } from '../../services/blog.service';
import type { EngagementService } from '../../services/engagement.service';
import type { SessionService } from '../../services/session.service';
import type { UserService } from '../../services/user.service';
import { authRoutes } from './auth.routes';
import { blogRoutes } from './blog.routes';
import { commentRoutes } from './comment.routes';
import { docsRoutes } from './docs.routes';
import { likeRoutes } from './like.routes';
import { userRoutes } from './user.routes';

export interface RouteDeps {
  config: Config;
  sessions: SessionService;
  users: UserService;
  accounts: AccountService;
  blogs: BlogService;
  /** Likes and comments. */
  engagement: EngagementService;
  authenticate: RequestHandler;
  /** Brute-force resistance for POST /auth/login (see middlewares/login-throttle.ts). */
  loginThrottle: LoginThrottle;
  accountCleanups: readonly AccountCleanup[];
  openApiDocument: OpenApiDocument;
}

export function v1Routes(deps: RouteDeps): Router {
  const router = Router();
  router.get('/', createRootController({ publicUrl: deps.config.publicUrl }).getStatus);
  router.use('/auth', authRoutes(deps));
  router.use('/users', userRoutes(deps));
  router.use('/blogs', blogRoutes(deps));
  router.use('/likes', likeRoutes(deps));
  router.use('/comments', commentRoutes(deps));
  router.use(docsRoutes(deps.openApiDocument));
  return router;
}
