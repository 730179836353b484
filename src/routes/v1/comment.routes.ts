import { Router } from 'express';
import { createCommentController } from '../../controllers/v1/comment.controller';
import { loaded } from '../../lib/request-locals';
import { authorize, authorizeOwnerOr } from '../../middlewares/authorize';
import { authenticateUnlessPublicRead } from '../../middlewares/optional-authenticate';
import { publicWhenAnonymous } from '../../middlewares/public-cache';
import { validate } from '../../middlewares/validate';
import { noBody } from '../../validators/common.validators';
import {
  addCommentValidators,
  commentIdValidators,
  listAllCommentsValidators,
  listCommentsValidators,
} from '../../validators/comment.validators';
import type { RouteDeps } from './deps';

export function commentRoutes(deps: RouteDeps): Router {
  const comments = createCommentController(deps);
  const router = Router();
  // reads may be anonymous when the operator turns PUBLIC_READS on; writes always need a token
  router.use(authenticateUnlessPublicRead(deps.authenticate, deps.config.publicReads));
  // a blog's comments, read anonymously, are cached as its other public reads are; a moderator's list is private
  router.use(publicWhenAnonymous(deps.config.publicCache));
  // every comment on every blog, for moderation
  router.get('/', authorize('comments:moderate'), listAllCommentsValidators, validate, comments.listAllComments);
  router.post('/blog/:blogId', deps.verifiedEmail, addCommentValidators, validate, comments.addComment);
  router.get('/blog/:blogId', listCommentsValidators, validate, comments.listComments);
  // its author, or a moderator
  router.delete(
    '/:commentId',
    commentIdValidators,
    noBody,
    validate,
    comments.loadComment,
    authorizeOwnerOr('comments:moderate', (res) => loaded(res, 'comment').author),
    comments.deleteComment,
  );
  return router;
}
