/** What every resource router of /api/v1 receives from app.ts: the services, created once, and the shared middlewares. */
import type { RequestHandler } from 'express';
import type { Config } from '../../config';
import type { LoginThrottle } from '../../middlewares/login-throttle';
import type { OpenApiDocument } from '../../openapi/types';
import type { AccountCleanup, AccountService } from '../../services/account.service';
import type { BlogService } from '../../services/blog.service';
import type { EngagementService } from '../../services/engagement.service';
import type { SessionService } from '../../services/session.service';
import type { UserService } from '../../services/user.service';

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
