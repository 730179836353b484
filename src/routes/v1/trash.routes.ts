import { Router } from 'express';
import { createTrashController } from '../../controllers/v1/trash.controller';
import { authorize } from '../../middlewares/authorize';
import { validate } from '../../middlewares/validate';
import { blogIdValidators } from '../../validators/blog.validators';
import { noBody, pagination } from '../../validators/common.validators';
import type { RouteDeps } from './deps';

/** Admins only, as deleting is. */
export function trashRoutes(deps: RouteDeps): Router {
  const trash = createTrashController(deps);
  const router = Router();
  router.use(deps.authenticate, authorize('blogs:manage'));
  router.get('/', pagination, validate, trash.list);
  router.delete('/', noBody, validate, trash.empty);
  router.post('/:blogId/restore', blogIdValidators, noBody, validate, trash.restore);
  router.delete('/:blogId', blogIdValidators, noBody, validate, trash.purge);
  return router;
}
