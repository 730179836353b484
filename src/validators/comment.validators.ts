/** express-validator chains for /comments; the new comment's field and its rules are src/schemas/comment.ts's. */
import { checkSchema } from 'express-validator';
import { newCommentBody } from '../schemas/comment';
import { blogIdValidators } from './blog.validators';
import { jsonContentType, objectIdParam, pagination } from './common.validators';
import { onlyFields } from './unknown-fields';

export const addCommentValidators = [
  jsonContentType,
  onlyFields(newCommentBody.fields),
  ...blogIdValidators,
  ...checkSchema(newCommentBody.rules, ['body']),
];
export const listCommentsValidators = [...blogIdValidators, ...pagination];
export const listAllCommentsValidators = pagination;
export const commentIdValidators = [objectIdParam('commentId', 'Comment id')];
