/** /likes: a signed-in user likes and unlikes blogs they may see. */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import { signedInUser } from '../../lib/request-locals';
import type { EngagementService } from '../../services/engagement.service';

export function createLikeController({ engagement }: { engagement: EngagementService }) {
  return {
    async likeBlog(req: Request, res: Response) {
      res.json({ likesCount: await engagement.likeBlog(matchedData(req).blogId, signedInUser(res)) });
    },

    async unlikeBlog(req: Request, res: Response) {
      await engagement.unlikeBlog(matchedData(req).blogId, signedInUser(res));
      res.sendStatus(204);
    },
  };
}
