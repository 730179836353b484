/**
 * Bearer authentication: the access token must verify (HS256, access secret, unexpired), its session
 * must still exist (not logged out, not ended by a password change) and its user must still exist
 * and not be in the middle of being deleted.
 *
 * With AUTH_CACHE_TTL_MS set, a GET or HEAD may rely on the same check made by an earlier request of this
 * instance, for at most that long (lib/session-cache.ts); every other method asks the database, and drops
 * the user's entries once its answer is sent.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Types } from 'mongoose';
import { AuthenticationError } from '../errors/http-errors';
import { SessionCache } from '../lib/session-cache';
import { ACTIVE_ACCOUNT, UserModel, type UserDocument } from '../models/user.model';
import type { SessionService } from '../services/session.service';

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/;

const isRead = (req: Request) => req.method === 'GET' || req.method === 'HEAD';

export function authenticate(sessions: SessionService, { cacheTtlMs = 0 }: { cacheTtlMs?: number } = {}) {
  const cache =
    cacheTtlMs > 0 ? new SessionCache<{ sessionId: Types.ObjectId; user: UserDocument }>(cacheTtlMs) : undefined;
  return async (req: Request, res: Response, next: NextFunction) => {
    const match = BEARER.exec(req.get('authorization') ?? '');
    if (!match) throw new AuthenticationError('Access token required', 'access_token_missing');
    const claims = sessions.claimsOfAccessToken(match[1]);
    const cached = claims && cache && isRead(req) ? cache.get(claims.sid, claims.sub) : undefined;
    if (cached) {
      res.locals.user = cached.user;
      res.locals.sessionId = cached.sessionId;
      return next();
    }
    const mark = cache?.mark();
    // The token names both the session and the user: one step reads both, side by side.
    const [sessionId, user] = claims
      ? await Promise.all([sessions.liveSessionId(claims), UserModel.findOne({ _id: claims.sub, ...ACTIVE_ACCOUNT })])
      : [];
    if (!sessionId || !user) throw rejectedAccessToken(sessions, match[1]);
    res.locals.user = user;
    res.locals.sessionId = sessionId;
    if (cache && claims) {
      if (isRead(req)) cache.keep(mark!, claims.sid, claims.sub, { sessionId, user });
      else res.once('close', () => cache.forgetUser(claims.sub));
    }
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
