/** /users: the signed-in user's own account, and account administration for admins. */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import { BadRequest } from '../../errors/http-errors';
import { refuseCurrentPassword, sessionIdOf, signedInUser } from '../../lib/request-locals';
import type { AccountEmailService } from '../../services/account-email.service';
import type { AccountCleanup, AccountService } from '../../services/account.service';
import { pageOf } from '../../services/pagination';
import type { SessionService } from '../../services/session.service';
import { profileUpdateOf } from '../../schemas/user';
import { isWrongCurrentPassword, PasswordChangedMeanwhile, type UserService } from '../../services/user.service';

interface UserControllerDeps {
  users: UserService;
  sessions: SessionService;
  accounts: AccountService;
  accountCleanups: readonly AccountCleanup[];
  accountEmail: AccountEmailService;
}

export function createUserController({ users, sessions, accounts, accountCleanups, accountEmail }: UserControllerDeps) {
  return {
    getCurrentUser(_req: Request, res: Response) {
      res.json({ user: signedInUser(res) });
    },

    async updateCurrentUser(req: Request, res: Response) {
      // Saving a user deleted meanwhile fails with DocumentNotFoundError, which answers 404.
      const user = signedInUser(res);
      const matched = matchedData<Parameters<typeof profileUpdateOf>[0] & { current_password?: string }>(req);
      const update = profileUpdateOf(matched);
      const { passwordChanged, emailChanged } = await users
        .updateProfile(user, update, matched.current_password)
        .catch((error: unknown) => {
          if (isWrongCurrentPassword(error)) refuseCurrentPassword(res);
          // Of two password changes at once, the first to land wins and ends every other session (the one of
          // this request too, unless both came from it: a form sent twice); this one changed nothing.
          if (error instanceof PasswordChangedMeanwhile) {
            throw new BadRequest('The password was changed by another request meanwhile; nothing changed');
          }
          throw error;
        });
      // A new password ends every other session; the one that changed it stays signed in.
      if (passwordChanged) await sessions.closeOtherSessions(user._id, sessionIdOf(res));
      // Links mailed to the old address stop working; the new one gets its own when verification is on.
      if (emailChanged) {
        await accountEmail.forgetAddress(user._id);
        if (accountEmail.verificationIsOn()) accountEmail.sendVerificationLink(user);
      }
      res.json({ user });
    },

    async deleteCurrentUser(_req: Request, res: Response) {
      await accounts.deleteAccount(signedInUser(res)._id, accountCleanups);
      res.sendStatus(204);
    },

    async listUsers(req: Request, res: Response) {
      const { limit, offset } = pageOf(matchedData(req));
      const { total, users: list } = await users.listUsers({ limit, offset });
      res.json({ limit, offset, total, users: list });
    },

    async getUser(req: Request, res: Response) {
      res.json({ user: await users.getUser(matchedData(req).userId) });
    },

    async deleteUser(req: Request, res: Response) {
      const user = await users.findUserById(matchedData(req).userId);
      await accounts.deleteAccount(user._id, accountCleanups);
      res.sendStatus(204);
    },
  };
}
