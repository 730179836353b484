/** express-validator chains for /comments. */
import { COMMENT_LIMITS } from '../schemas/comment';
import { blogIdValidators } from './blog.validators';
import { objectIdParam, pagination, requiredString } from './common.validators';
import { onlyFields } from './unknown-fields';

export const addCommentValidators = [
  onlyFields(['content']),
  ...blogIdValidators,
  requiredString('content', 'Content')
    .isLength({ min: 1, max: COMMENT_LIMITS.content })
    .withMessage(`Content must be 1 to ${COMMENT_LIMITS.content} characters`),
];
export const listCommentsValidators = [...blogIdValidators, ...pagination];
export const listAllCommentsValidators = pagination;
export const commentIdValidators = [objectIdParam('commentId', 'Comment id')];
