import { Router } from 'express';
import { createLikeController } from '../../controllers/v1/like.controller';
import { validate } from '../../middlewares/validate';
import { blogIdValidators } from '../../validators/blog.validators';
import { noBody } from '../../validators/common.validators';
import type { RouteDeps } from './deps';

export function likeRoutes(deps: RouteDeps): Router {
  const likes = createLikeController(deps);
  const router = Router();
  router.use(deps.authenticate);
  router.post('/blog/:blogId', deps.verifiedEmail, blogIdValidators, noBody, validate, likes.likeBlog);
  router.delete('/blog/:blogId', blogIdValidators, noBody, validate, likes.unlikeBlog);
  return router;
}
