/** /comments: plain-text comments on blogs the user may see; deleted by their author or a moderator. */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import { loaded, signedInUser, viewerOf } from '../../lib/request-locals';
import type { EngagementService } from '../../services/engagement.service';
import { pageOf } from '../../services/pagination';

export function createCommentController({ engagement }: { engagement: EngagementService }) {
  return {
    async addComment(req: Request, res: Response) {
      const { blogId, content } = matchedData(req);
      res.status(201).json({ comment: await engagement.addComment(blogId, signedInUser(res), content) });
    },

    async listComments(req: Request, res: Response) {
      const data = matchedData(req);
      const { limit, offset } = pageOf(data);
      const page = await engagement.listComments(data.blogId, viewerOf(res), { limit, offset });
      res.json({ limit, offset, ...page });
    },

    /** Every comment, newest first, each with its blog's _id, title and slug: moderation without opening each blog. */
    async listAllComments(req: Request, res: Response) {
      const { limit, offset } = pageOf(matchedData(req));
      const page = await engagement.listAllComments(signedInUser(res), { limit, offset });
      res.json({ limit, offset, ...page });
    },

    /** Finds the comment named in the path (404 when there is none) into res.locals.comment, before the ownership check. */
    async loadComment(req: Request, res: Response, next: () => void) {
      res.locals.comment = await engagement.findComment(matchedData(req).commentId);
      next();
    },

    async deleteComment(_req: Request, res: Response) {
      await engagement.deleteComment(loaded(res, 'comment'));
      res.sendStatus(204);
    },
  };
}
