/**
 * Sessions and their tokens: a short-lived access token for the Authorization header and a
 * long-lived refresh token for the cookie, both naming the same server-side session.
 */
import { createHash } from 'node:crypto';
import { Types } from 'mongoose';
import type { Config } from '../config';
import { NotFound } from '../errors/http-errors';
import type { AuthChanges } from '../lib/auth-changes';
import { isExpiredToken, signToken, verifyToken, type TokenClaims } from '../lib/jwt';
import type { Logger } from '../lib/logger';
import { SessionModel, type SessionDocument } from '../models/session.model';
import { viewOf } from '../schemas/common';
import {
  LAST_USED_PRECISION_MS,
  SESSIONS_LISTED,
  SessionSchema,
  USER_AGENT_MAX_LENGTH,
  type SessionView,
} from '../schemas/session';

export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
}

/** Where a session began, as its owner will see it: the User-Agent header and the client address. */
export interface SessionOrigin {
  userAgent?: string;
  ip?: string;
}

/** Sessions opened before these fields were recorded lack them: the view shows null. */
const MISSING_AS_NULL = { lastUsedAt: null, userAgent: null, ip: null };

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');
const isObjectId = (value: string) => Types.ObjectId.isValid(value) && String(new Types.ObjectId(value)) === value;

export function createSessionService(jwtConfig: Config['jwt'], authChanges: AuthChanges, logger: Logger) {
  function issueAccessToken(claims: TokenClaims): string {
    return signToken(claims, jwtConfig.accessSecret, jwtConfig.accessTtlSeconds);
  }

  /** Opens a session for a user who just registered or logged in. */
  async function openSession(userId: Types.ObjectId, origin: SessionOrigin = {}): Promise<IssuedSession> {
    return (await createSession(userId, origin)).issued;
  }

  /**
   * Opens a session for an account proven by a check that took time (a password compared with its hash),
   * then asks whether the proof still holds. A password reset or change, or a deletion, that landed during
   * the check ends the account's sessions once its own write is done: a session opened meanwhile would
   * outlive it. Such a session is closed again before anyone holds it, and undefined is answered.
   */
  async function openProvenSession(
    userId: Types.ObjectId,
    origin: SessionOrigin,
    stillHolds: () => Promise<boolean>,
  ): Promise<IssuedSession | undefined> {
    const { sid, issued } = await createSession(userId, origin);
    if (await stillHolds()) return issued;
    await SessionModel.deleteOne({ _id: sid });
    return undefined;
  }

  async function createSession(userId: Types.ObjectId, origin: SessionOrigin) {
    const claims = { sub: String(userId), sid: String(new Types.ObjectId()) };
    const refreshToken = signToken(claims, jwtConfig.refreshSecret, jwtConfig.refreshTtlSeconds);
    await SessionModel.create({
      _id: claims.sid,
      user: userId,
      tokenHash: hashToken(refreshToken),
      expiresAt: new Date(Date.now() + jwtConfig.refreshTtlSeconds * 1000),
      userAgent: origin.userAgent?.slice(0, USER_AGENT_MAX_LENGTH) || undefined,
      ip: origin.ip || undefined,
      lastUsedAt: new Date(),
    });
    return { sid: claims.sid, issued: { accessToken: issueAccessToken(claims), refreshToken } };
  }

  /** The live session an access token belongs to, or undefined (bad token, logged out, expired). */
  async function findSessionOfAccessToken(token: string): Promise<SessionDocument | undefined> {
    const claims = verifyToken(token, jwtConfig.accessSecret);
    return claims ? findLiveSession(claims) : undefined;
  }

  /** Whether a rejected access token was ours and only out of time (the client should refresh), not invalid. */
  const accessTokenExpired = (token: string) => isExpiredToken(token, jwtConfig.accessSecret);
  /**
   * The claims of a valid access token whose ids are well-formed, or undefined. Checks nothing in the
   * database: authenticate() then reads the session (liveSessionId) and the user side by side.
   */
  function claimsOfAccessToken(token: string): TokenClaims | undefined {
    const claims = verifyToken(token, jwtConfig.accessSecret);
    return claims && isObjectId(claims.sid) && isObjectId(claims.sub) ? claims : undefined;
  }

  /**
   * The id of the live session the claims name (its user, unexpired), or undefined: one lean read. Marks
   * the session used when its mark is a minute old or more, without waiting for that write (markUsed).
   */
  async function liveSessionId(claims: TokenClaims): Promise<Types.ObjectId | undefined> {
    const session = await SessionModel.findOne({ _id: claims.sid, user: claims.sub }, 'expiresAt lastUsedAt').lean();
    if (!session || session.expiresAt.getTime() <= Date.now()) return undefined;
    markUsed(session).catch((error: unknown) =>
      logger.warn('could not record when a session was last used', { error: String(error) }),
    );
    return session._id;
  }

  /**
   * Records that a session was used now, unless it was within LAST_USED_PRECISION_MS: at most one small
   * write a minute per session, whatever the number of requests. Bounded by the driver's deadline.
   */
  async function markUsed(session: { _id: Types.ObjectId; lastUsedAt?: Date | null }): Promise<void> {
    const now = Date.now();
    if (session.lastUsedAt && now - session.lastUsedAt.getTime() < LAST_USED_PRECISION_MS) return;
    await SessionModel.updateOne({ _id: session._id }, { $set: { lastUsedAt: new Date(now) } });
  }

  /** The live session a refresh token belongs to; the token must be the very one issued for it. */
  async function findSessionOfRefreshToken(token: string): Promise<SessionDocument | undefined> {
    const claims = verifyToken(token, jwtConfig.refreshSecret);
    if (!claims) return undefined;
    const session = await findLiveSession(claims);
    return session?.tokenHash === hashToken(token) ? session : undefined;
  }

  async function findLiveSession(claims: TokenClaims): Promise<SessionDocument | undefined> {
    if (!isObjectId(claims.sid) || !isObjectId(claims.sub)) return undefined;
    const session = await SessionModel.findOne({ _id: claims.sid, user: claims.sub });
    return session && session.expiresAt.getTime() > Date.now() ? session : undefined;
  }

  return {
    openSession,
    openProvenSession,
    findSessionOfAccessToken,
    accessTokenExpired,
    claimsOfAccessToken,
    liveSessionId,
    findSessionOfRefreshToken,
    /** A fresh access token for a session proven by its refresh token (which marks the session used). */
    refreshAccessToken: async (session: SessionDocument) => {
      await markUsed(session);
      return issueAccessToken({ sub: String(session.user), sid: String(session._id) });
    },
    /** The user's live sessions as they see them, newest first, at most SESSIONS_LISTED. */
    listSessions: async (userId: Types.ObjectId, current: Types.ObjectId): Promise<SessionView[]> => {
      const sessions = await SessionModel.find(
        { user: userId, expiresAt: { $gt: new Date() } },
        'createdAt lastUsedAt userAgent ip',
      )
        .sort({ createdAt: -1, _id: -1 })
        .limit(SESSIONS_LISTED)
        .lean();
      return sessions.map((session) =>
        viewOf(SessionSchema, session, MISSING_AS_NULL, { current: session._id.equals(current) }),
      );
    },
    /** Ends one of the user's sessions (404 when the user has none of that id); every instance hears of it. */
    closeSessionOfUser: async (userId: Types.ObjectId, sessionId: string) => {
      const { deletedCount } = await SessionModel.deleteOne({ _id: sessionId, user: userId });
      if (deletedCount === 0) throw new NotFound('Session not found');
      await authChanges.announce(String(userId));
    },
    /** Ends a session (a logout); every instance stops trusting what it cached of its user. */
    closeSession: async (session: Pick<SessionDocument, '_id' | 'user'>) => {
      await SessionModel.deleteOne({ _id: session._id });
      await authChanges.announce(String(session.user));
    },
    /** Ends every session of a user (a password reset: whoever held one may have stolen it). */
    closeAllSessions: async (userId: Types.ObjectId) => {
      await SessionModel.deleteMany({ user: userId });
      await authChanges.announce(String(userId));
    },
    /** Ends every session of a user except `keep` (the one that asked, on a password change). */
    closeOtherSessions: async (userId: Types.ObjectId, keep: Types.ObjectId) => {
      await SessionModel.deleteMany({ user: userId, _id: { $ne: keep } });
      await authChanges.announce(String(userId));
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
