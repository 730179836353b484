/** /likes: a signed-in user likes and unlikes blogs they may see. */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import { currentUser } from '../../middlewares/authenticate';
import { likeBlog, unlikeBlog } from '../../services/engagement.service';

export const likeController = {
  async likeBlog(req: Request, res: Response) {
    res.json({ likesCount: await likeBlog(matchedData(req).blogId, currentUser(req)) });
  },

  async unlikeBlog(req: Request, res: Response) {
    await unlikeBlog(matchedData(req).blogId, currentUser(req));
    res.sendStatus(204);
  },
};
