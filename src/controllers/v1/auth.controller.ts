/**
 * /auth: register, login, refresh and logout, and the signed-in user's sessions. The refresh token
 * travels only in its cookie.
 */
import type { CookieOptions, Request, Response } from 'express';
import { matchedData } from 'express-validator';
import { API_BASE_PATH, type Config } from '../../config';
import {
  AuthenticationError,
  AuthorizationError,
  BadRequest,
  NotFound,
  RequestValidationError,
  ServiceUnavailable,
} from '../../errors/http-errors';
import { plainAddress } from '../../lib/client-address';
import { sessionIdOf, signedInUser } from '../../lib/request-locals';
import {
  EMAIL_VERIFIED_ANSWER,
  FORGOT_PASSWORD_ANSWER,
  MAIL_OFF_MESSAGE,
  RESEND_VERIFICATION_ANSWER,
} from '../../schemas/auth';
import type { AccountEmailService } from '../../services/account-email.service';
import type { IssuedSession, SessionOrigin, SessionService } from '../../services/session.service';
import type { Role, UserDocument, UserService } from '../../services/user.service';

export const REFRESH_COOKIE = 'refreshToken';
/** The cookie goes only to the auth routes, the only ones that read it. */
export const REFRESH_COOKIE_PATH = `${API_BASE_PATH}/auth`;

interface AuthControllerDeps {
  config: Config;
  /** The per-account count of failed logins (middlewares/login-throttle.ts), cleared by a successful one. */
  loginThrottle: { clearFailuresOfAccount(email: string): Promise<void> };
  sessions: SessionService;
  users: UserService;
  accountEmail: AccountEmailService;
}

/** What the session's owner will see of where it began; `req.ip` follows TRUST_PROXY. */
const originOf = (req: Request): SessionOrigin => ({
  userAgent: req.get('user-agent'),
  ip: req.ip === undefined ? undefined : plainAddress(req.ip),
});

/** A mailed token that does not hold (unknown, used, expired, another purpose): one answer for all. */
const invalidToken = (label: string) =>
  RequestValidationError.forField('token', `${label} is invalid, used or expired`);

export function createAuthController({ config, loginThrottle, sessions, users, accountEmail }: AuthControllerDeps) {
  /** The routes that mail answer 503 when mail is off (production without SMTP_URL), never pretending to send. */
  function assertMailIsOn() {
    if (accountEmail.mailIsOff()) throw new ServiceUnavailable(MAIL_OFF_MESSAGE);
  }

  const cookieOptions: CookieOptions = {
    httpOnly: true,
    // Secure in production and SameSite=Strict unless the operator says otherwise (COOKIE_SECURE, COOKIE_SAMESITE)
    secure: config.refreshCookie.secure,
    sameSite: config.refreshCookie.sameSite,
    path: REFRESH_COOKIE_PATH,
  };

  function sendLogin(res: Response, status: number, user: UserDocument, issued: IssuedSession) {
    res.cookie(REFRESH_COOKIE, issued.refreshToken, { ...cookieOptions, maxAge: config.jwt.refreshTtlSeconds * 1000 });
    res.status(status).json({ accessToken: issued.accessToken, user });
  }

  return {
    async register(req: Request, res: Response) {
      const { email, password, role = 'user' } = matchedData<{ email: string; password: string; role?: Role }>(req);
      if (role === 'admin' && !config.adminEmails.has(email)) {
        throw new AuthorizationError('This email may not register as an admin');
      }
      const user = await users.createUser({ email, password, role });
      sendLogin(res, 201, user, await sessions.openSession(user._id, originOf(req)));
      if (accountEmail.verificationIsOn()) accountEmail.sendVerificationLink(user);
    },

    async login(req: Request, res: Response) {
      const { email, password } = matchedData<{ email: string; password: string }>(req);
      const user = await users.findUserByEmailWithPassword(email);
      if (!user) {
        // as slow as a wrong password, so the answer's timing does not tell which emails have accounts
        await users.comparePasswordOfUnknownUser(password);
        throw new NotFound('User not found').refusingAuthentication('unknown_email');
      }
      if (!(await users.passwordMatches(user, password))) {
        throw RequestValidationError.forField('password', 'Email or password is incorrect').refusingAuthentication(
          'wrong_password',
        );
      }
      // the password compared a while: a reset, a change or a deletion landing meanwhile ends this login too
      const issued = await sessions.openProvenSession(user._id, originOf(req), () => users.stillHasPassword(user));
      if (!issued) {
        throw RequestValidationError.forField('password', 'Email or password is incorrect').refusingAuthentication(
          'wrong_password',
        );
      }
      await loginThrottle.clearFailuresOfAccount(user.email);
      sendLogin(res, 200, user, issued);
    },

    async refreshToken(req: Request, res: Response) {
      const session = await sessions.findSessionOfRefreshToken(req.cookies[REFRESH_COOKIE]);
      if (!session) throw new AuthenticationError('Refresh token is invalid or expired', 'refresh_token_invalid');
      // a session its account outlived (deleted while it was opened) ends here, not in a loop of 401s
      if (!(await users.isActive(session.user))) {
        await sessions.closeSession(session);
        throw new AuthenticationError('Refresh token is invalid or expired', 'account_deleted');
      }
      res.json({ accessToken: await sessions.refreshAccessToken(session) });
    },

    async logout(req: Request, res: Response) {
      const session = await sessions.findSessionOfRefreshToken(req.cookies[REFRESH_COOKIE]);
      if (!session || !session.user.equals(signedInUser(res)._id)) {
        throw new AuthenticationError('Refresh token is invalid or expired', 'refresh_token_invalid');
      }
      await sessions.closeSession(session);
      res.clearCookie(REFRESH_COOKIE, cookieOptions);
      res.json({ message: 'Logged out successfully' });
    },

    /** 202 and the same body whether or not an account has the address; the mail (if any) goes after. */
    forgotPassword(req: Request, res: Response) {
      assertMailIsOn();
      res.status(202).json({ message: FORGOT_PASSWORD_ANSWER });
      accountEmail.requestPasswordReset(matchedData(req).email);
    },

    /** A new password by a mailed token: every session of the account ends, and this client signs in as by login. */
    async resetPassword(req: Request, res: Response) {
      const { token, password } = matchedData<{ token: string; password: string }>(req);
      const user = await accountEmail.redeemResetToken(token);
      if (!user) throw invalidToken('Reset token');
      await users.setPassword(user, password);
      // the link came to the address: it is proven as well as by a verification link (if still the account's);
      // shown in the answer, not saved from this copy, which an email change meanwhile would make stale
      if (await accountEmail.proveAddressOfReset(user)) user.set('emailVerified', true);
      await sessions.closeAllSessions(user._id);
      // the owner proved the address: a lock that guesses at the old password set ends with it
      await loginThrottle.clearFailuresOfAccount(user.email);
      sendLogin(res, 200, user, await sessions.openSession(user._id, originOf(req)));
    },

    async verifyEmail(req: Request, res: Response) {
      if (!(await accountEmail.verifyEmail(matchedData(req).token))) throw invalidToken('Verification token');
      res.json({ message: EMAIL_VERIFIED_ANSWER });
    },

    resendVerification(_req: Request, res: Response) {
      if (!accountEmail.verificationIsOn()) {
        throw new NotFound('Email verification is off on this server (EMAIL_VERIFICATION=off)');
      }
      assertMailIsOn();
      const user = signedInUser(res);
      if (user.emailVerified === true) throw new BadRequest('Your email is already verified');
      accountEmail.sendVerificationLink(user);
      res.status(202).json({ message: RESEND_VERIFICATION_ANSWER });
    },

    async listSessions(_req: Request, res: Response) {
      res.json({ sessions: await sessions.listSessions(signedInUser(res)._id, sessionIdOf(res)) });
    },

    /** Ends one of the user's sessions, this one included (its cookie then stops working; logout also clears it). */
    async endSession(req: Request, res: Response) {
      await sessions.closeSessionOfUser(signedInUser(res)._id, matchedData(req).sessionId);
      res.sendStatus(204);
    },

    async endOtherSessions(_req: Request, res: Response) {
      await sessions.closeOtherSessions(signedInUser(res)._id, sessionIdOf(res));
      res.sendStatus(204);
    },
  };
}
