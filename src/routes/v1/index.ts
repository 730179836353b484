/** Every route of /api/v1, one router per resource. */
import { Router } from 'express';
import { createRootController } from '../../controllers/v1/root.controller';
import { authRoutes } from './auth.routes';
import { blogRoutes, previewRoutes, tagRoutes } from './blog.routes';
import { commentRoutes } from './comment.routes';
import { docsRoutes } from './docs.routes';
import { likeRoutes } from './like.routes';
import type { RouteDeps } from './deps';
import { trashRoutes } from './trash.routes';
import { userRoutes } from './user.routes';
import { webhookRoutes } from './webhook.routes';

export type { RouteDeps };

export function v1Routes(deps: RouteDeps): Router {
  const router = Router();
  router.get('/', createRootController({ publicUrl: deps.config.publicUrl }).getStatus);
  router.use('/auth', authRoutes(deps));
  router.use('/users', userRoutes(deps));
  router.use('/blogs', previewRoutes(deps));
  router.use('/blogs', blogRoutes(deps));
  router.use('/tags', tagRoutes(deps));
  router.use('/likes', likeRoutes(deps));
  router.use('/comments', commentRoutes(deps));
  router.use('/trash', trashRoutes(deps));
  router.use('/webhooks', webhookRoutes(deps));
  router.use(docsRoutes(deps.openApiDocument));
  return router;
}
