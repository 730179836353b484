import { Router } from 'express';
import { createUserController } from '../../controllers/v1/user.controller';
import { authorize } from '../../middlewares/authorize';
import { validate } from '../../middlewares/validate';
import { noBody } from '../../validators/common.validators';
import { listUsersValidators, updateCurrentUserValidators, userIdValidators } from '../../validators/user.validators';
import type { RouteDeps } from './deps';

export function userRoutes(deps: RouteDeps): Router {
  const users = createUserController(deps);
  const router = Router();
  router.use(deps.authenticate);
  router.get('/current', users.getCurrentUser);
  router.put(
    '/current',
    deps.loginThrottle.perAccountOfCurrentPassword,
    updateCurrentUserValidators,
    validate,
    users.updateCurrentUser,
  );
  router.delete('/current', noBody, validate, users.deleteCurrentUser);
  router.get('/', authorize('users:manage'), listUsersValidators, validate, users.listUsers);
  router.get('/:userId', authorize('users:manage'), userIdValidators, validate, users.getUser);
  router.delete('/:userId', authorize('users:manage'), userIdValidators, noBody, validate, users.deleteUser);
  return router;
}
