/**
 * Accessors for what handlers hand along a request in `res.locals` (typed in types/express.d.ts): the
 * one request-scoped channel. Middlewares and validators write it; controllers and later middlewares
 * read it through these, never through each other's modules.
 *
 * The types come from that declaration (`Express.Locals`), not from the models, so this file stays in
 * lib/ and imports nothing above it: what a signed-in user is, the declaration says once.
 */
import type { Response } from 'express';
import { Types } from 'mongoose';
import { AuthenticationError } from '../errors/http-errors';
import type { Role } from '../schemas/user';

/** The signed-in user as authenticate() leaves it in `res.locals`. */
type SignedInUser = NonNullable<Express.Locals['user']>;

/** Who reads without signing in: a regular user's view (published blogs only) that likes nothing. */
export const ANONYMOUS_VIEWER: { readonly _id: Types.ObjectId; readonly role: Role } = Object.freeze({
  _id: new Types.ObjectId('000000000000000000000000'),
  role: 'user' as const,
});

/** The signed-in user of a request that passed authenticate(). */
export function signedInUser(res: Response): SignedInUser {
  const { user } = res.locals;
  if (!user) throw new AuthenticationError('Access token required', 'access_token_missing');
  return user;
}

/** The session of a request that passed authenticate(). */
export function sessionIdOf(res: Response): Types.ObjectId {
  const { sessionId } = res.locals;
  if (!sessionId) throw new AuthenticationError('Access token required', 'access_token_missing');
  return sessionId;
}

/** The signed-in user, or the anonymous viewer on a public read (PUBLIC_READS). */
export const viewerOf = (res: Response): { _id: Types.ObjectId; role: Role } => res.locals.user ?? ANONYMOUS_VIEWER;

/** Marks this request's `current_password` as wrong: the login throttle counts it as a failed login. */
export function refuseCurrentPassword(res: Response): void {
  res.locals.wrongCurrentPassword = true;
}

export const wasWrongCurrentPassword = (res: Response) => res.locals.wrongCurrentPassword === true;

/** A value an earlier handler of the route must have put in `res.locals` (a loader, a validator). */
export function loaded<K extends 'banner' | 'comment'>(res: Response, key: K): NonNullable<Express.Locals[K]> {
  const value = res.locals[key];
  if (value === undefined) throw new Error(`res.locals.${key} must be set by an earlier handler of this route`);
  return value as NonNullable<Express.Locals[K]>;
}
