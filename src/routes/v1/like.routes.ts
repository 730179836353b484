import { Router } from 'express';
import { createLikeController } from '../../controllers/v1/like.controller';
import { validate } from '../../middlewares/validate';
import { blogIdValidators } from '../../validators/blog.validators';
import { onlyFields } from '../../validators/unknown-fields';
import type { RouteDeps } from './deps';

export function likeRoutes(deps: RouteDeps): Router {
  const likes = createLikeController(deps);
  const router = Router();
  router.use(deps.authenticate);
  router.post('/blog/:blogId', deps.verifiedEmail, blogIdValidators, onlyFields([]), validate, likes.likeBlog);
  router.delete('/blog/:blogId', blogIdValidators, validate, likes.unlikeBlog);
  return router;
}
