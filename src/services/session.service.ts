/**
 * Sessions and their tokens: a short-lived access token for the Authorization header and a
 * long-lived refresh token for the cookie, both naming the same server-side session.
 */
import { createHash } from 'node:crypto';
import { Types } from 'mongoose';
import type { Config } from '../config';
import type { AuthChanges } from '../lib/auth-changes';
import { isExpiredToken, signToken, verifyToken, type TokenClaims } from '../lib/jwt';
import { SessionModel, type SessionDocument } from '../models/session.model';

export interface IssuedSession {
  accessToken: string;
  refreshToken: string;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');
const isObjectId = (value: string) => Types.ObjectId.isValid(value) && String(new Types.ObjectId(value)) === value;

export function createSessionService(jwtConfig: Config['jwt'], authChanges: AuthChanges) {
  function issueAccessToken(claims: TokenClaims): string {
    return signToken(claims, jwtConfig.accessSecret, jwtConfig.accessTtlSeconds);
  }

  /** Opens a session for a user who just registered or logged in. */
  async function openSession(userId: Types.ObjectId): Promise<IssuedSession> {
    const claims = { sub: String(userId), sid: String(new Types.ObjectId()) };
    const refreshToken = signToken(claims, jwtConfig.refreshSecret, jwtConfig.refreshTtlSeconds);
    await SessionModel.create({
      _id: claims.sid,
      user: userId,
      tokenHash: hashToken(refreshToken),
      expiresAt: new Date(Date.now() + jwtConfig.refreshTtlSeconds * 1000),
    });
    return { accessToken: issueAccessToken(claims), refreshToken };
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

  /** The id of the live session the claims name (its user, unexpired), or undefined: one lean read. */
  async function liveSessionId(claims: TokenClaims): Promise<Types.ObjectId | undefined> {
    const session = await SessionModel.findOne({ _id: claims.sid, user: claims.sub }, 'expiresAt').lean();
    return session && session.expiresAt.getTime() > Date.now() ? session._id : undefined;
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
    findSessionOfAccessToken,
    accessTokenExpired,
    claimsOfAccessToken,
    liveSessionId,
    findSessionOfRefreshToken,
    /** A fresh access token for a session proven by its refresh token. */
    refreshAccessToken: (session: SessionDocument) =>
      issueAccessToken({ sub: String(session.user), sid: String(session._id) }),
    /** Ends a session (a logout); every instance stops trusting what it cached of its user. */
    closeSession: async (session: Pick<SessionDocument, '_id' | 'user'>) => {
      await SessionModel.deleteOne({ _id: session._id });
      await authChanges.announce(String(session.user));
    },
    /** Ends every session of a user except `keep` (the one that asked, on a password change). */
    closeOtherSessions: async (userId: Types.ObjectId, keep: Types.ObjectId) => {
      await SessionModel.deleteMany({ user: userId, _id: { $ne: keep } });
      await authChanges.announce(String(userId));
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
