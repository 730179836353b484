/**
 * Bearer authentication: the access token must verify (HS256, access secret, unexpired), its session
 * must still exist (not logged out, not ended by a password change) and its user must still exist
 * and not be in the middle of being deleted.
 *
 * A GET or HEAD may rely on the same check made by an earlier request of this instance, for at most
 * AUTH_CACHE_TTL_MS (lib/user-cache.ts), unless a change to that user was announced meanwhile
 * (lib/auth-changes.ts); every other method asks the database. A refusal for want of a right never rests
 * on a kept check: authorize() asks the database again first (res.locals.checkSessionAgain).
 */
import type { NextFunction, Request, Response } from 'express';
import type { Types } from 'mongoose';
import { AuthenticationError } from '../errors/http-errors';
import type { AuthChanges } from '../lib/auth-changes';
import type { TokenClaims } from '../lib/jwt';
import { userCacheFor } from '../lib/user-cache';
import { ACTIVE_ACCOUNT, UserModel, type UserDocument } from '../models/user.model';
import { keepPrivate } from './public-cache';
import type { SessionService } from '../services/session.service';

/** The scheme's name in any case, as HTTP has it (RFC 9110, 11.1): `bearer` and `BEARER` too. */
const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/i;
const BEARER_SCHEME = /^Bearer /i;
const MISSING_TOKEN = () => new AuthenticationError('Access token required', 'access_token_missing');
/** A bearer that is no JWT is a token, just not a valid one: the same answer as a bad signature. */
const INVALID_TOKEN = () => new AuthenticationError('Access token is invalid', 'access_token_invalid');

const isRead = (req: Request) => req.method === 'GET' || req.method === 'HEAD';

export interface AuthenticateOptions {
  /** How long a read may rely on an earlier check of its session (0: every request asks the database). */
  cacheTtlMs: number;
  /** Where changes to users and sessions are announced; the cache drops what they change. */
  authChanges: AuthChanges;
}

export function authenticate(sessions: SessionService, { cacheTtlMs, authChanges }: AuthenticateOptions) {
  const cache = userCacheFor<{ sessionId: Types.ObjectId; user: UserDocument }>(cacheTtlMs, authChanges);

  /** Asks the database; what a read finds is kept for the next reads of the session. */
  async function check(req: Request, res: Response, token: string, claims: TokenClaims | undefined) {
    const mark = cache?.mark();
    // The token names both the session and the user: one step reads both, side by side.
    const [sessionId, user] = claims
      ? await Promise.all([sessions.liveSessionId(claims), UserModel.findOne({ _id: claims.sub, ...ACTIVE_ACCOUNT })])
      : [];
    if (!sessionId || !user) throw rejectedAccessToken(sessions, token);
    res.locals.user = user;
    res.locals.sessionId = sessionId;
    if (cache && claims && isRead(req)) cache.keep(mark!, claims.sid, claims.sub, { sessionId, user });
  }

  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.get('authorization') ?? '';
    const match = BEARER.exec(header);
    if (!match) throw BEARER_SCHEME.test(header) ? INVALID_TOKEN() : MISSING_TOKEN();
    const token = match[1];
    const claims = sessions.claimsOfAccessToken(token);
    const cached = claims && cache && isRead(req) ? cache.get(claims.sid, claims.sub) : undefined;
    if (cached) {
      res.locals.user = cached.user;
      res.locals.sessionId = cached.sessionId;
      res.locals.checkSessionAgain = () => check(req, res, token, claims);
    } else {
      await check(req, res, token, claims);
    }
    keepPrivate(res);
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
    : INVALID_TOKEN();
