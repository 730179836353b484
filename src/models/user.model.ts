/**
 * A user account. The password hash is stored under `password`, never selected unless asked for,
 * and never serialised (toJSON drops it).
 */
import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { readDeadline } from './read-deadline';
import { maxCharacters } from './text-limits';

import { keysOf, viewOf } from '../schemas/common';
import {
  AuthorCardSchema,
  PublicUserSchema,
  ROLES,
  SOCIAL_NETWORKS,
  USER_LIMITS,
  UserSchema,
  type AuthorCardView,
  type PublicUserView,
  type Role,
  type SocialNetwork,
  type UserView,
} from '../schemas/user';

export { ROLES, SOCIAL_NETWORKS, USER_LIMITS, type Role, type SocialNetwork };

const socialLinks = Object.fromEntries(
  SOCIAL_NETWORKS.map((network) => [network, { type: String, validate: maxCharacters(USER_LIMITS.socialLink) }]),
) as Record<SocialNetwork, { type: StringConstructor; validate: ReturnType<typeof maxCharacters> }>;

const userSchema = new Schema(
  {
    // unique: login, registration and profile updates look users up by username and email
    username: { type: String, required: true, unique: true, validate: maxCharacters(USER_LIMITS.username), trim: true },
    // The username lower-cased, set on every save: its unique index makes usernames unique whatever
    // their case ("ADMIN" beside "admin" is refused) while `username` keeps the case its owner chose.
    // Sparse, because records older than this field have none until the start-up backfill
    // (models/user.migrations.ts) gives them one. A collation index would do it too, but the offline
    // stand-in database ignores collations; a plain normalised field works everywhere.
    usernameKey: { type: String, unique: true, sparse: true },
    email: {
      type: String,
      required: true,
      unique: true,
      validate: maxCharacters(USER_LIMITS.email),
      lowercase: true,
      trim: true,
    },
    // Absent until email verification applies to the account (EMAIL_VERIFICATION on): see schemas/user.ts
    emailVerified: { type: Boolean },
    password: { type: String, required: true, select: false },
    role: { type: String, enum: ROLES, default: 'user', required: true },
    firstName: { type: String, validate: maxCharacters(USER_LIMITS.name), trim: true },
    lastName: { type: String, validate: maxCharacters(USER_LIMITS.name), trim: true },
    socialLinks,
    // set when account deletion begins: the account stops working at once, and writes that were
    // already under way see it and undo themselves (see services/account.service.ts deleteAccount)
    deletingAt: { type: Date, default: null },
  },
  {
    timestamps: true,
    toJSON: {
      // keep `socialLinks: {}` for users without links, so clients need no existence check
      minimize: false,
      // A fixed field order whatever the document's history; the hash and __v never leave.
      transform: (_document, result: Record<string, unknown>) => userView(result),
    },
  },
);

userSchema.pre('validate', function setUsernameKey() {
  if (typeof this.username === 'string') this.usernameKey = this.username.toLowerCase();
});

// GET /users/ lists newest accounts first
userSchema.index({ createdAt: -1, _id: -1 });

/** The fields userView() reads: a projection for lean reads of users that are to be shown (never the hash). */
export const USER_VIEW_FIELDS = keysOf(UserSchema).join(' ');

/** A blog card's author (AuthorCardSchema), from a lean read of USER_VIEW_FIELDS: the same for every viewer. */
export function authorCardView(user: Record<string, unknown>): AuthorCardView {
  return viewOf(AuthorCardSchema, user, {}, { name: displayNameOf(user) });
}

/** The name a card (and a feed) shows for a user: the first and last names, those given, else the username. */
export function displayNameOf(user: { firstName?: unknown; lastName?: unknown; username?: unknown }): string {
  const names = [user.firstName, user.lastName].filter((name) => typeof name === 'string' && name !== '');
  return names.length > 0 ? names.join(' ') : String(user.username);
}

/**
 * A user as the API shows it (src/schemas/user.ts), from a document's toJSON result or a lean read alike:
 * the view's field order whatever the document's history; the hash and __v never leave.
 */
export function userView(user: Record<string, unknown>): UserView {
  return viewOf(UserSchema, user, { socialLinks: {} });
}

/** Matches accounts that exist and are not being deleted. */
export const ACTIVE_ACCOUNT = { deletingAt: null } as const;

export type User = InferSchemaType<typeof userSchema>;
export type UserDocument = HydratedDocument<User>;
userSchema.plugin(readDeadline);
export const UserModel = model('User', userSchema);

/** A user as other users see them (as blog and comment authors): everything but the email address. */
export function publicUserView(user: unknown): PublicUserView | null {
  if (!user || typeof user !== 'object') return null;
  const json = typeof (user as { toJSON?: unknown }).toJSON === 'function' ? (user as UserDocument).toJSON() : user;
  return viewOf(PublicUserSchema, json as Record<string, unknown>);
}
