/**
 * Account work that is not HTTP: creating users with a unique generated username,
 * checking passwords, updating profiles and deleting accounts with everything they own.
 */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';
import type { Types } from 'mongoose';
import { AuthenticationError, RequestValidationError } from '../errors/http-errors';
import { SessionModel } from '../models/session.model';
import { ACTIVE_ACCOUNT, SOCIAL_NETWORKS, USER_LIMITS, UserModel, type Role, type SocialNetwork, type UserDocument } from '../models/user.model';
import { createConcurrencyLimit, cpuBoundConcurrency } from '../lib/concurrency';
import type { Logger } from '../lib/logger';
import { duplicateKeyField, isDuplicateKeyError } from '../lib/mongo-errors';

const USERNAME_ATTEMPTS = 8;

/** The field a duplicate-key error on users is about, as clients know it: `usernameKey` is `username` lower-cased. */
function duplicateUserField(error: unknown): string | undefined {
  const field = duplicateKeyField(error);
  return field === 'usernameKey' ? 'username' : field;
}
const SUFFIX_LENGTH = 6;

/**
 * The part of the email before "@", lower-cased and reduced to letters, digits, "." "_" "-"
 * and cut to the username limit: "Ada.Lovelace+blog@x.org" gives "ada.lovelace".
 */
export function usernameBaseFromEmail(email: string): string {
  const local = email.split('@')[0].split('+')[0].toLowerCase();
  const cleaned = local.replace(/[^a-z0-9._-]/g, '').replace(/^[._-]+|[._-]+$/g, '');
  return (cleaned || 'user').slice(0, USER_LIMITS.username);
}

function usernameCandidate(base: string, attempt: number): string {
  if (attempt === 0) return base;
  const suffix = randomBytes(SUFFIX_LENGTH).toString('hex').slice(0, SUFFIX_LENGTH);
  return `${base.slice(0, USER_LIMITS.username - SUFFIX_LENGTH - 1)}-${suffix}`;
}

export function createUserService(options: { bcryptCost: number }) {
  // Logins at full speed must not starve reads: bcrypt gets all cores but one (see lib/concurrency).
  const hashing = createConcurrencyLimit(cpuBoundConcurrency());
  const hashPassword = (password: string) => hashing(() => bcrypt.hash(password, options.bcryptCost));
  /**
   * A hash no password matches, at the configured cost. Login compares against it when the email is
   * unknown, so an unknown email takes as long to answer as a wrong password (no timing oracle of
   * which emails have accounts; the 404 itself is the spec's).
   */
  const dummyHash = hashPassword(randomBytes(32).toString('hex'));
  dummyHash.catch(() => undefined); // awaited (and so reported) by the first login that needs it

  /**
   * Creates a user whose username derives from the email. The unique index decides collisions,
   * so two registrations racing for one username cannot both win; the loser retries with a suffix.
   */
  async function createUser(fields: { email: string; password: string; role: Role }): Promise<UserDocument> {
    const password = await hashPassword(fields.password);
    const base = usernameBaseFromEmail(fields.email);
    for (let attempt = 0; ; attempt++) {
      try {
        return await UserModel.create({ ...fields, password, username: usernameCandidate(base, attempt) });
      } catch (error) {
        const field = duplicateUserField(error);
        if (field === 'email') throw RequestValidationError.forField('email', 'This email is already in use', 'body', fields.email);
        if (field !== 'username' || attempt + 1 >= USERNAME_ATTEMPTS) throw error;
      }
    }
  }

  /** The user with that email and a matching password; `undefined` password match for an unknown email. */
  async function findUserByEmailWithPassword(email: string) {
    return UserModel.findOne({ email }).select('+password');
  }

  const passwordMatches = (user: UserDocument, password: string) => hashing(() => bcrypt.compare(password, user.password));

  /** Spends the time of a password check for an email without an account (see dummyHash). */
  async function comparePasswordOfUnknownUser(password: string): Promise<void> {
    const hash = await dummyHash;
    await hashing(() => bcrypt.compare(password, hash));
  }

  /**
   * Applies a profile update given in the request's flat shape (first_name, website, ...).
   * An empty string clears an optional field. Returns whether the password changed.
   */
  async function updateProfile(user: UserDocument, update: ProfileUpdate): Promise<{ passwordChanged: boolean }> {
    if (update.username !== undefined) user.username = update.username;
    if (update.email !== undefined) user.email = update.email;
    if (update.first_name !== undefined) user.firstName = update.first_name || undefined;
    if (update.last_name !== undefined) user.lastName = update.last_name || undefined;
    for (const network of SOCIAL_NETWORKS) {
      const link = update[network];
      if (link !== undefined) user.set(`socialLinks.${network}`, link || undefined);
    }
    if (update.password !== undefined) user.password = await hashPassword(update.password);
    try {
      await user.save();
    } catch (error) {
      const field = duplicateUserField(error);
      if (field === 'email' || field === 'username') {
        throw RequestValidationError.forField(field, `This ${field} is already in use`, 'body', String(update[field]));
      }
      throw error;
    }
    return { passwordChanged: update.password !== undefined };
  }

  return { createUser, findUserByEmailWithPassword, passwordMatches, comparePasswordOfUnknownUser, updateProfile };
}

export type ProfileUpdate = Partial<
  Record<'username' | 'email' | 'password' | 'first_name' | 'last_name' | SocialNetwork, string>
>;

export type UserService = ReturnType<typeof createUserService>;

/**
 * Gives every user saved before `usernameKey` existed its key (the username lower-cased), so the
 * case-insensitive uniqueness covers old records too. Run at start-up, before the API serves; once
 * done it finds nothing to do (one pass over the users collection). Two old records that differ only
 * in case cannot both have the key: the later one keeps none and is logged, for an operator to rename
 * (it still signs in). A failure is logged and start-up goes on: the next start tries again.
 */
export async function backfillUsernameKeys(logger: Logger): Promise<void> {
  let fixed = 0;
  try {
    const missing = UserModel.find({ usernameKey: { $exists: false } }).select('_id username').lean().cursor();
    for await (const user of missing) {
      try {
        await UserModel.updateOne({ _id: user._id }, { $set: { usernameKey: user.username.toLowerCase() } }, { timestamps: false });
        fixed += 1;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        logger.warn('users: a username differs from another only in case; rename one of them', { userId: String(user._id), username: user.username });
      }
    }
  } catch (error) {
    logger.error('users: could not add case-insensitive username keys; the next start tries again', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  if (fixed > 0) logger.info('users: case-insensitive username keys added to older accounts', { count: fixed });
}

/** Steps run, in order, when an account is deleted; later features add theirs (blogs, likes, comments). */
export type AccountCleanup = (userId: Types.ObjectId) => Promise<void>;

/**
 * Deletes an account and what it owns. Without multi-document transactions the order matters:
 * the account is marked first, so it stops authenticating at once and a write already under way
 * (a like, a comment, a blog) notices and undoes itself (see assertAccountActive); then sessions,
 * owned data, and the user record last, so a failure half-way leaves a marked user that an admin
 * can simply delete again.
 */
export async function deleteAccount(userId: Types.ObjectId, cleanups: readonly AccountCleanup[]): Promise<void> {
  await UserModel.updateOne({ _id: userId }, { $set: { deletingAt: new Date() } }, { timestamps: false });
  await SessionModel.deleteMany({ user: userId });
  for (const cleanup of cleanups) await cleanup(userId);
  await UserModel.deleteOne({ _id: userId });
}

/**
 * For writes made on behalf of a user, checked after the write: if the account is gone or being
 * deleted, `undo` takes the write back and the request ends with 401. Checking after, not before,
 * closes the race with deleteAccount: either this check sees the mark, or the write happened before
 * the mark and the deletion's cleanup, which runs after the mark, finds it.
 */
export async function assertAccountActive(userId: Types.ObjectId, undo: () => Promise<unknown>): Promise<void> {
  if (await UserModel.exists({ _id: userId, ...ACTIVE_ACCOUNT })) return;
  await undo();
  throw new AuthenticationError('This account no longer exists', 'account_deleted');
}
