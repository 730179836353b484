/**
 * JSON Web Tokens, signed and verified with one pinned algorithm (HS256), so neither
 * `alg: none` nor a token signed with another algorithm is ever accepted.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

const ALGORITHM = 'HS256';

export interface TokenClaims {
  /** user id */
  sub: string;
  /** session id */
  sid: string;
}

/**
 * The secret as a key object, made once per secret. Given a string, jsonwebtoken first tries it as a
 * PEM public key on every call, and building (then discarding) that exception was a tenth of the CPU
 * time of an authenticated request (bench/README.md).
 */
const secretKeys = new Map<string, KeyObject>();
function keyOf(secret: string): KeyObject {
  let key = secretKeys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret));
    secretKeys.set(secret, key);
  }
  return key;
}

export function signToken(claims: TokenClaims, secret: string, ttlSeconds: number): string {
  return jwt.sign({ sid: claims.sid }, keyOf(secret), {
    algorithm: ALGORITHM,
    subject: claims.sub,
    expiresIn: ttlSeconds,
  });
}

/** Returns the claims of a valid, unexpired token, or undefined for anything else. */
export function verifyToken(token: string, secret: string): TokenClaims | undefined {
  try {
    const payload = jwt.verify(token, keyOf(secret), { algorithms: [ALGORITHM] });
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string')
      return undefined;
    return { sub: payload.sub, sid: payload.sid };
  } catch {
    return undefined;
  }
}

/**
 * Whether a token that failed verification did so only because its lifetime is over: genuinely signed
 * by us (same secret, same algorithm) but past its `exp`. Lets a client tell "refresh now" from "bad token".
 */
export function isExpiredToken(token: string, secret: string): boolean {
  try {
    const payload = jwt.verify(token, secret, { algorithms: [ALGORITHM], ignoreExpiration: true });
    return typeof payload === 'object' && typeof payload.exp === 'number' && payload.exp * 1000 <= Date.now();
  } catch {
    return false;
  }
}
