/**
 * The life and end of an account: deleting it with everything it owns, and the check that writes made
 * on behalf of a user run after, so that a write racing with the deletion undoes itself.
 */
import type { Types } from 'mongoose';
import { AuthenticationError } from '../errors/http-errors';
import type { AuthChanges } from '../lib/auth-changes';
import { AccountTokenModel } from '../models/account-token.model';
import { SessionModel } from '../models/session.model';
import { ACTIVE_ACCOUNT, UserModel } from '../models/user.model';

/** Steps run, in order, when an account is deleted; later features add theirs (blogs, likes, comments). */
export type AccountCleanup = (userId: Types.ObjectId) => Promise<void>;

export function createAccountService({ authChanges }: { authChanges: AuthChanges }) {
  /**
   * Deletes an account and what it owns. Without multi-document transactions the order matters:
   * the account is marked first, so it stops authenticating at once and a write already under way
   * (a like, a comment, a blog) notices and undoes itself (see assertAccountActive); then sessions,
   * owned data, and the user record last, so a failure half-way leaves a marked user that an admin
   * can simply delete again.
   */
  async function deleteAccount(userId: Types.ObjectId, cleanups: readonly AccountCleanup[]): Promise<void> {
    await UserModel.updateOne({ _id: userId }, { $set: { deletingAt: new Date() } }, { timestamps: false });
    await authChanges.announce(String(userId));
    await SessionModel.deleteMany({ user: userId });
    await AccountTokenModel.deleteMany({ user: userId });
    for (const cleanup of cleanups) await cleanup(userId);
    await UserModel.deleteOne({ _id: userId });
  }

  /**
   * For writes made on behalf of a user, checked after the write: if the account is gone or being
   * deleted, `undo` takes the write back and the request ends with 401. Checking after, not before,
   * closes the race with deleteAccount: either this check sees the mark, or the write happened before
   * the mark and the deletion's cleanup, which runs after the mark, finds it.
   */
  async function assertAccountActive(userId: Types.ObjectId, undo: () => Promise<unknown>): Promise<void> {
    if (await UserModel.exists({ _id: userId, ...ACTIVE_ACCOUNT })) return;
    await undo();
    throw new AuthenticationError('This account no longer exists', 'account_deleted');
  }

  return { deleteAccount, assertAccountActive };
}

export type AccountService = ReturnType<typeof createAccountService>;
