/** /users: the signed-in user's own account, and account administration for admins. */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import { NotFound } from '../../errors/http-errors';
import { currentUser } from '../../middlewares/authenticate';
import { UserModel } from '../../models/user.model';
import { deleteAccount, type AccountCleanup, type ProfileUpdate, type UserService } from '../../services/user.service';
import type { SessionService } from '../../services/session.service';
import { paginationOf } from '../../validators/common.validators';

interface UserControllerDeps {
  users: UserService;
  sessions: SessionService;
  accountCleanups: readonly AccountCleanup[];
}

export function createUserController({ users, sessions, accountCleanups }: UserControllerDeps) {
  async function findUserOr404(userId: string) {
    const user = await UserModel.findById(userId);
    if (!user) throw new NotFound('User not found');
    return user;
  }

  return {
    getCurrentUser(req: Request, res: Response) {
      res.json({ user: currentUser(req) });
    },

    async updateCurrentUser(req: Request, res: Response) {
      // Saving a user deleted meanwhile fails with DocumentNotFoundError, which answers 404.
      const user = currentUser(req);
      const { passwordChanged } = await users.updateProfile(user, matchedData<ProfileUpdate>(req));
      // A new password ends every other session; the one that changed it stays signed in.
      if (passwordChanged) await sessions.closeOtherSessions(user._id, req.sessionId!);
      res.json({ user });
    },

    async deleteCurrentUser(req: Request, res: Response) {
      await deleteAccount(currentUser(req)._id, accountCleanups);
      res.sendStatus(204);
    },

    async listUsers(req: Request, res: Response) {
      const { limit, offset } = paginationOf(matchedData(req));
      const [total, list] = await Promise.all([
        UserModel.countDocuments(),
        UserModel.find().sort({ createdAt: -1, _id: -1 }).skip(offset).limit(limit),
      ]);
      res.json({ limit, offset, total, users: list });
    },

    async getUser(req: Request, res: Response) {
      res.json({ user: await findUserOr404(matchedData(req).userId) });
    },

    async deleteUser(req: Request, res: Response) {
      const user = await findUserOr404(matchedData(req).userId);
      await deleteAccount(user._id, accountCleanups);
      res.sendStatus(204);
    },
  };
}
