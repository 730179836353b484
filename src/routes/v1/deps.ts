/** What every resource router of /api/v1 receives from app.ts: the services, created once, and the shared middlewares. */
import type { RequestHandler } from 'express';
import type { Config } from '../../config';
import type { LoginThrottle } from '../../middlewares/login-throttle';
import type { MailThrottle } from '../../middlewares/mail-throttle';
import type { OpenApiDocument } from '../../openapi/types';
import type { AccountEmailService } from '../../services/account-email.service';
import type { AccountCleanup, AccountService } from '../../services/account.service';
import type { BlogService } from '../../services/blog.service';
import type { EngagementService } from '../../services/engagement.service';
import type { SessionService } from '../../services/session.service';
import type { PreviewLinks } from '../../services/preview-links';
import type { TrashService } from '../../services/trash.service';
import type { UserService } from '../../services/user.service';
import type { WebhookService } from '../../services/webhook.service';

export interface RouteDeps {
  config: Config;
  sessions: SessionService;
  users: UserService;
  accounts: AccountService;
  blogs: BlogService;
  /** Likes and comments. */
  engagement: EngagementService;
  /** Trashed blogs: restore and purge. */
  trash: TrashService;
  /** Signed links to drafts. */
  previewLinks: PreviewLinks;
  /** Admins' webhooks and their deliveries. */
  webhooks: WebhookService;
  authenticate: RequestHandler;
  /** Brute-force resistance for POST /auth/login (see middlewares/login-throttle.ts). */
  loginThrottle: LoginThrottle;
  /** Mail-bomb and enumeration-walk resistance for the routes that mail a link (middlewares/mail-throttle.ts). */
  mailThrottle: MailThrottle;
  /** Password-reset and verification mail, and their tokens. */
  accountEmail: AccountEmailService;
  /** With EMAIL_VERIFICATION=required, refuses writes others see to unverified accounts (403); passes otherwise. */
  verifiedEmail: RequestHandler;
  accountCleanups: readonly AccountCleanup[];
  openApiDocument: OpenApiDocument;
}
