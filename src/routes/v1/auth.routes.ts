import { Router } from 'express';
import { createAuthController, REFRESH_COOKIE } from '../../controllers/v1/auth.controller';
import { requireRefreshCookie } from '../../middlewares/refresh-cookie';
import { validate } from '../../middlewares/validate';
import {
  loginValidators,
  noBodyFields,
  refreshCookieValidators,
  registerValidators,
  sessionIdValidators,
} from '../../validators/auth.validators';
import type { RouteDeps } from './deps';

export function authRoutes(deps: RouteDeps): Router {
  const auth = createAuthController(deps);
  const refreshCookie = requireRefreshCookie(REFRESH_COOKIE);
  const router = Router();
  router.post('/register', registerValidators, validate, auth.register);
  router.post('/login', deps.loginThrottle.perIp, loginValidators, validate, deps.loginThrottle.perAccount, auth.login);
  router.post('/refresh-token', refreshCookie, refreshCookieValidators, noBodyFields, validate, auth.refreshToken);
  router.post(
    '/logout',
    deps.authenticate,
    refreshCookie,
    refreshCookieValidators,
    noBodyFields,
    validate,
    auth.logout,
  );
  router.get('/sessions', deps.authenticate, auth.listSessions);
  router.delete('/sessions', deps.authenticate, auth.endOtherSessions);
  router.delete('/sessions/:sessionId', deps.authenticate, sessionIdValidators, validate, auth.endSession);
  return router;
}
