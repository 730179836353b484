/** /comments: plain-text comments on blogs the user may see; deleted by their author or a moderator. */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import { currentUser } from '../../middlewares/authenticate';
import { viewerOf } from '../../middlewares/optional-authenticate';
import type { CommentDocument } from '../../models/comment.model';
import { addComment, deleteComment, findComment, listAllComments, listComments } from '../../services/engagement.service';
import { paginationOf } from '../../validators/common.validators';

/** The comment loadComment found, for the ownership check and the controller after it. */
const loadedComments = new WeakMap<Request, CommentDocument>();
export function loadedComment(req: Request): CommentDocument {
  const comment = loadedComments.get(req);
  if (!comment) throw new Error('loadComment must run before this handler');
  return comment;
}

export const commentController = {
  async addComment(req: Request, res: Response) {
    const { blogId, content } = matchedData(req);
    res.status(201).json({ comment: await addComment(blogId, currentUser(req), content) });
  },

  async listComments(req: Request, res: Response) {
    const data = matchedData(req);
    const { limit, offset } = paginationOf(data);
    const page = await listComments(data.blogId, viewerOf(req), { limit, offset });
    res.json({ limit, offset, ...page });
  },

  /** Every comment, newest first, each with its blog's _id, title and slug: moderation without opening each blog. */
  async listAllComments(req: Request, res: Response) {
    const { limit, offset } = paginationOf(matchedData(req));
    const page = await listAllComments(currentUser(req), { limit, offset });
    res.json({ limit, offset, ...page });
  },

  /** Finds the comment named in the path (404 when there is none), before the ownership check. */
  async loadComment(req: Request, _res: Response, next: () => void) {
    loadedComments.set(req, await findComment(matchedData(req).commentId));
    next();
  },

  async deleteComment(req: Request, res: Response) {
    await deleteComment(loadedComment(req));
    res.sendStatus(204);
  },
};
