import { Router } from 'express';
import { commentController as comments, loadedComment } from '../../controllers/v1/comment.controller';
import { authorizeOwnerOr } from '../../middlewares/authorize';
import { validate } from '../../middlewares/validate';
import { addCommentValidators, commentIdValidators, listCommentsValidators } from '../../validators/blog.validators';
import type { RouteDeps } from './index';

export function commentRoutes(deps: RouteDeps): Router {
  const router = Router();
  router.use(deps.authenticate);
  router.post('/blog/:blogId', addCommentValidators, validate, comments.addComment);
  router.get('/blog/:blogId', listCommentsValidators, validate, comments.listComments);
  // its author, or a moderator
  router.delete(
    '/:commentId',
    commentIdValidators,
    validate,
    comments.loadComment,
    authorizeOwnerOr('comments:moderate', (req) => loadedComment(req).author),
    comments.deleteComment,
  );
  return router;
}
