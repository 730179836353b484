/**
 * Bearer authentication: the access token must verify (HS256, access secret, unexpired), its session
 * must still exist (not logged out, not ended by a password change) and its user must still exist
 * and not be in the middle of being deleted.
 */
import type { NextFunction, Request, Response } from 'express';
import { AuthenticationError } from '../errors/http-errors';
import { ACTIVE_ACCOUNT, UserModel } from '../models/user.model';
import type { SessionService } from '../services/session.service';

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/;

export function authenticate(sessions: SessionService) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const match = BEARER.exec(req.get('authorization') ?? '');
    if (!match) throw new AuthenticationError('Access token required', 'access_token_missing');
    const claims = sessions.claimsOfAccessToken(match[1]);
    // The token names both the session and the user: one step reads both, side by side.
    const [sessionId, user] = claims
      ? await Promise.all([sessions.liveSessionId(claims), UserModel.findOne({ _id: claims.sub, ...ACTIVE_ACCOUNT })])
      : [];
    if (!sessionId || !user) throw rejectedAccessToken(sessions, match[1]);
    res.locals.user = user;
    res.locals.sessionId = sessionId;
    next();
  };
}

/**
 * "expired" only when the token is ours and out of time, so a SPA knows to refresh; "invalid" for anything
 * else (bad signature, logged out, account gone), for which refreshing is pointless.
 */
export const rejectedAccessToken = (sessions: SessionService, token: string) =>
  sessions.accessTokenExpired(token)
    ? new AuthenticationError('Access token expired', 'access_token_expired')
    : new AuthenticationError('Access token is invalid', 'access_token_invalid');
