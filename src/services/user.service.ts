/**
 * Account work that is not HTTP: creating users with a unique generated username, checking passwords,
 * reading and listing accounts, and updating profiles (deleting them is services/account.service.ts).
 */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';
import { NotFound, RequestValidationError } from '../errors/http-errors';
import mongoose, { type Types } from 'mongoose';
import {
  ACTIVE_ACCOUNT,
  SOCIAL_NETWORKS,
  USER_LIMITS,
  USER_VIEW_FIELDS,
  UserModel,
  userView,
  type Role,
  type UserDocument,
} from '../models/user.model';
import type { ProfileUpdate, UserView } from '../schemas/user';
import type { AuthChanges } from '../lib/auth-changes';
import { cpuBoundLimit } from '../lib/cpu-bound';
import { duplicateKeyField } from '../lib/mongo-errors';

export type { Role, UserDocument } from '../models/user.model';

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
function usernameBaseFromEmail(email: string): string {
  const local = email.split('@')[0].split('+')[0].toLowerCase();
  const cleaned = local.replace(/[^a-z0-9._-]/g, '').replace(/^[._-]+|[._-]+$/g, '');
  return (cleaned || 'user').slice(0, USER_LIMITS.username);
}

function usernameCandidate(base: string, attempt: number): string {
  if (attempt === 0) return base;
  const suffix = randomBytes(SUFFIX_LENGTH).toString('hex').slice(0, SUFFIX_LENGTH);
  return `${base.slice(0, USER_LIMITS.username - SUFFIX_LENGTH - 1)}-${suffix}`;
}

const CURRENT_PASSWORD_INCORRECT = 'Current password is incorrect';

/** A password change that lost to another landing first (updateProfile saved nothing). */
export class PasswordChangedMeanwhile extends Error {
  constructor() {
    super('The password was changed by another request meanwhile');
  }
}

/** The refusal of a wrong `current_password` (a guess at the password, which the login throttle counts). */
export const isWrongCurrentPassword = (error: unknown) =>
  error instanceof RequestValidationError && error.errors.current_password?.msg === CURRENT_PASSWORD_INCORRECT;

export function createUserService(options: {
  bcryptCost: number;
  authChanges: AuthChanges;
  /** REQUIRE_CURRENT_PASSWORD: a change of password or email must come with the current password. */
  requireCurrentPassword?: boolean;
  /** EMAIL_VERIFICATION on: new accounts and changed addresses start unverified (emailVerified: false). */
  verifiesEmail?: boolean;
}) {
  const unverified = options.verifiesEmail ? { emailVerified: false } : {};
  // Logins at full speed must not starve reads: bcrypt gets all cores but one (see lib/cpu-bound.ts).
  const hashing = cpuBoundLimit();
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
        return await UserModel.create({
          ...fields,
          ...unverified,
          password,
          username: usernameCandidate(base, attempt),
        });
      } catch (error) {
        const field = duplicateUserField(error);
        if (field === 'email')
          throw RequestValidationError.forField('email', 'This email is already in use', 'body', fields.email);
        if (field !== 'username' || attempt + 1 >= USERNAME_ATTEMPTS) throw error;
      }
    }
  }

  /** The account that may sign in with this email, with its password hash; none while it is being deleted. */
  async function findUserByEmailWithPassword(email: string) {
    return UserModel.findOne({ email, ...ACTIVE_ACCOUNT }).select('+password');
  }

  /** Whether the account still has the password hash it was read with, and is not being deleted. */
  async function stillHasPassword(user: UserDocument): Promise<boolean> {
    return (await UserModel.exists({ _id: user._id, password: user.password, ...ACTIVE_ACCOUNT })) !== null;
  }

  /** Whether the account exists and is not being deleted. */
  async function isActive(userId: Types.ObjectId): Promise<boolean> {
    return (await UserModel.exists({ _id: userId, ...ACTIVE_ACCOUNT })) !== null;
  }

  const passwordMatches = (user: UserDocument, password: string) =>
    hashing(() => bcrypt.compare(password, user.password));

  /** Spends the time of a password check for an email without an account (see dummyHash). */
  async function comparePasswordOfUnknownUser(password: string): Promise<void> {
    const hash = await dummyHash;
    await hashing(() => bcrypt.compare(password, hash));
  }

  /**
   * The current password, when sent, must be right; with REQUIRE_CURRENT_PASSWORD it must be sent to change
   * the password or the email (to another one). 400 on `current_password` otherwise, before anything changes.
   */
  async function confirmCurrentPassword(
    user: UserDocument,
    update: ProfileUpdate,
    currentPassword: string | undefined,
    storedPassword: string | undefined,
  ) {
    if (currentPassword === undefined) {
      const sensitive = update.password !== undefined || (update.email !== undefined && update.email !== user.email);
      if (sensitive && options.requireCurrentPassword) {
        throw RequestValidationError.forField(
          'current_password',
          'Current password is required to change the password or the email',
        );
      }
      return;
    }
    if (storedPassword === undefined || !(await hashing(() => bcrypt.compare(currentPassword, storedPassword)))) {
      throw RequestValidationError.forField('current_password', CURRENT_PASSWORD_INCORRECT);
    }
  }

  /** The account's password hash as stored now; none when the account is gone. */
  async function storedPasswordOf(userId: Types.ObjectId): Promise<string | undefined> {
    const stored = await UserModel.findById(userId, { password: 1 }).lean();
    return stored?.password;
  }

  /**
   * Applies a profile update given in the request's flat shape (first_name, website, ...), once the current
   * password is confirmed (confirmCurrentPassword). An empty string clears an optional field. Returns
   * whether the password and the email changed; a new email is unverified (or, verification off, claims nothing).
   */
  async function updateProfile(
    user: UserDocument,
    update: ProfileUpdate,
    currentPassword?: string,
  ): Promise<{ passwordChanged: boolean; emailChanged: boolean }> {
    // read once, before the check: the current password is checked against it, and a new password is saved
    // only over it, so that a change made meanwhile from another session is seen
    const needsPassword = update.password !== undefined || currentPassword !== undefined;
    const passwordBefore = needsPassword ? await storedPasswordOf(user._id) : undefined;
    await confirmCurrentPassword(user, update, currentPassword, passwordBefore);
    const emailChanged = update.email !== undefined && update.email !== user.email;
    if (update.username !== undefined) user.username = update.username;
    if (emailChanged) {
      user.email = update.email!;
      user.emailVerified = options.verifiesEmail ? false : undefined;
    }
    if (update.first_name !== undefined) user.firstName = update.first_name || undefined;
    if (update.last_name !== undefined) user.lastName = update.last_name || undefined;
    for (const network of SOCIAL_NETWORKS) {
      const link = update[network];
      if (link !== undefined) user.set(`socialLinks.${network}`, link || undefined);
    }
    if (update.password !== undefined) {
      user.password = await hashPassword(update.password);
      // Of two changes at once (two devices), the first to land wins and ends the other's session: the other
      // saves nothing and is told so, rather than answer 200 for a password that is not the account's.
      if (passwordBefore !== undefined) user.$where = { password: passwordBefore };
    }
    try {
      await user.save();
    } catch (error) {
      if (
        error instanceof mongoose.Error.DocumentNotFoundError &&
        update.password !== undefined &&
        passwordBefore !== undefined &&
        (await UserModel.exists({ _id: user._id })) !== null
      ) {
        throw new PasswordChangedMeanwhile();
      }
      const field = duplicateUserField(error);
      if (field === 'email' || field === 'username') {
        throw RequestValidationError.forField(field, `This ${field} is already in use`, 'body', String(update[field]));
      }
      throw error;
    }
    await options.authChanges.announce(String(user._id));
    return { passwordChanged: update.password !== undefined, emailChanged };
  }

  /** A new password, set by a reset link (the caller ends the account's sessions). */
  async function setPassword(user: UserDocument, password: string): Promise<void> {
    user.password = await hashPassword(password);
    await user.save();
    await options.authChanges.announce(String(user._id));
  }

  /** The account itself, for work on it (deletion); 404 when there is none. */
  async function findUserById(userId: string): Promise<UserDocument> {
    const user = await UserModel.findById(userId);
    if (!user) throw new NotFound('User not found');
    return user;
  }

  /** An account as the API shows it; 404 when there is none. */
  async function getUser(userId: string): Promise<UserView> {
    const user = await UserModel.findById(userId, USER_VIEW_FIELDS).lean();
    if (!user) throw new NotFound('User not found');
    return userView(user);
  }

  /** Every account as the API shows it, newest first. */
  async function listUsers(page: { limit: number; offset: number }): Promise<{ total: number; users: UserView[] }> {
    const [total, users] = await Promise.all([
      UserModel.countDocuments(),
      UserModel.find({}, USER_VIEW_FIELDS).sort({ createdAt: -1, _id: -1 }).skip(page.offset).limit(page.limit).lean(),
    ]);
    return { total, users: users.map((user) => userView(user)) };
  }

  return {
    createUser,
    findUserByEmailWithPassword,
    stillHasPassword,
    isActive,
    passwordMatches,
    comparePasswordOfUnknownUser,
    updateProfile,
    setPassword,
    findUserById,
    getUser,
    listUsers,
  };
}

export type { ProfileUpdate };

export type UserService = ReturnType<typeof createUserService>;
