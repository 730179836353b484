import { Router } from 'express';
import { createAuthController, REFRESH_COOKIE } from '../../controllers/v1/auth.controller';
import { noStore } from '../../middlewares/public-cache';
import { requireRefreshCookie } from '../../middlewares/refresh-cookie';
import { validate } from '../../middlewares/validate';
import { noBody } from '../../validators/common.validators';
import {
  forgotPasswordValidators,
  loginValidators,
  refreshCookieValidators,
  registerValidators,
  resetPasswordValidators,
  sessionIdValidators,
  verifyEmailValidators,
} from '../../validators/auth.validators';
import type { RouteDeps } from './deps';

export function authRoutes(deps: RouteDeps): Router {
  const auth = createAuthController(deps);
  const refreshCookie = requireRefreshCookie(REFRESH_COOKIE);
  const router = Router();
  router.use(noStore);
  router.post('/register', registerValidators, validate, auth.register);
  router.post('/login', deps.loginThrottle.perIp, loginValidators, validate, deps.loginThrottle.perAccount, auth.login);
  router.post('/refresh-token', refreshCookie, refreshCookieValidators, noBody, validate, auth.refreshToken);
  router.post('/logout', deps.authenticate, refreshCookie, refreshCookieValidators, noBody, validate, auth.logout);
  // mailed links: the mail throttle bounds what one client, and what one address, can set off
  const { mailThrottle } = deps;
  router.post(
    '/forgot-password',
    mailThrottle.perIp,
    forgotPasswordValidators,
    validate,
    mailThrottle.perAddress,
    auth.forgotPassword,
  );
  router.post('/reset-password', resetPasswordValidators, validate, auth.resetPassword);
  router.post('/verify-email', verifyEmailValidators, validate, auth.verifyEmail);
  router.post(
    '/verify-email/resend',
    deps.authenticate,
    noBody,
    validate,
    mailThrottle.perIp,
    mailThrottle.perAddressOfUser,
    auth.resendVerification,
  );
  router.get('/sessions', deps.authenticate, auth.listSessions);
  router.delete('/sessions', deps.authenticate, noBody, validate, auth.endOtherSessions);
  router.delete('/sessions/:sessionId', deps.authenticate, sessionIdValidators, noBody, validate, auth.endSession);
  return router;
}
