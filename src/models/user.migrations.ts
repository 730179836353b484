/**
 * Start-up migrations of the users collection: data an older release saved without what the schema
 * now relies on. Run by server.ts, the username keys before the API serves and the email forms in the
 * background after; each is idempotent.
 */
import { isDuplicateKeyError } from '../lib/mongo-errors';
import type { Logger } from '../lib/logger';
import { USER_LIMITS, canonicalEmail } from '../schemas/user';
import { UserModel } from './user.model';

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
    const missing = UserModel.find({ usernameKey: { $exists: false } })
      .select('_id username')
      .lean()
      .cursor();
    for await (const user of missing) {
      try {
        await UserModel.updateOne(
          { _id: user._id },
          { $set: { usernameKey: user.username.toLowerCase() } },
          { timestamps: false },
        );
        fixed += 1;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        logger.warn('users: a username differs from another only in case; rename one of them', {
          userId: String(user._id),
          username: user.username,
        });
      }
    }
  } catch (error) {
    logger.error('users: could not add case-insensitive username keys; the next start tries again', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  if (fixed > 0) logger.info('users: case-insensitive username keys added to older accounts', { count: fixed });
}

/** An address of printable ASCII alone: composed already, and stored lower-cased. */
const ASCII_ONLY = /^[ -~]*$/;

/**
 * Writes every stored address in the one form the forms now give (schemas/user.ts canonicalEmail): an
 * address stored decomposed would no longer match what its owner types to sign in (until the pass reaches
 * it, only the stored spelling does). Reads every account's address (and nothing else of it) once per
 * start: only those beyond ASCII can differ, but the offline stand-in cannot run a `$regex` on the email's
 * unique index. Two accounts that turn out to be one mailbox cannot both have it: the later keeps its
 * address as stored, and is logged for an operator, as is one whose composed form would be over the length
 * an address may have. A failure is logged: the next start tries again.
 */
export async function backfillEmailForms(logger: Logger): Promise<void> {
  let fixed = 0;
  try {
    const accounts = UserModel.find({}, { _id: 1, email: 1 }).lean().cursor({ batchSize: 1000 });
    for await (const user of accounts) {
      if (ASCII_ONLY.test(user.email)) continue;
      const canonical = canonicalEmail(user.email);
      if (canonical === user.email) continue;
      if (canonical.length > USER_LIMITS.email) {
        logger.warn('users: an address stored decomposed is too long composed; left as stored', {
          userId: String(user._id),
        });
        continue;
      }
      try {
        const { modifiedCount } = await UserModel.updateOne(
          { _id: user._id, email: user.email },
          { $set: { email: canonical } },
          { timestamps: false },
        );
        fixed += modifiedCount;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        logger.warn('users: two accounts have one mailbox, written two ways; delete or change one of them', {
          userId: String(user._id),
        });
      }
    }
  } catch (error) {
    logger.error('users: could not write stored email addresses in their one form; the next start tries again', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  if (fixed > 0) logger.info('users: stored email addresses written in their one form', { count: fixed });
}
