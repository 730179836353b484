/** A comment's fields and a like's answer, said once: bounds, the views the API shows, and the new comment's body. */
import { Type, type Static } from '@sinclair/typebox';
import { CountSchema, PLAIN_TEXT } from './blog';
import { DateTimeRef, ObjectIdRef, bodyOf, componentRef, pageOf, requiredKeysOf, textField } from './common';
import { AuthorRef } from './user';

export const COMMENT_LIMITS = { content: 1000 } as const;

export const CommentSchema = Type.Object(
  {
    _id: ObjectIdRef,
    blog: ObjectIdRef,
    author: AuthorRef,
    content: Type.String({ minLength: 1, maxLength: COMMENT_LIMITS.content, description: PLAIN_TEXT }),
    createdAt: DateTimeRef,
    updatedAt: DateTimeRef,
  },
  { additionalProperties: false },
);
export type CommentView = Static<typeof CommentSchema>;
/** The fields every comment response carries. */
export const COMMENT_VIEW_KEYS = requiredKeysOf(CommentSchema);

/** The blog of a comment as moderators see it; null for a blog deleted a moment ago. */
const BlogSummarySchema = Type.Object(
  { _id: ObjectIdRef, title: Type.String(), slug: Type.String() },
  { additionalProperties: false },
);

export const ModeratedCommentSchema = Type.Object(
  {
    ...CommentSchema.properties,
    blog: Type.Union([BlogSummarySchema, Type.Null()]),
  },
  {
    description:
      'A comment as moderators list it: with the _id, title and slug of its blog (null for a blog deleted a moment ago)',
    additionalProperties: false,
  },
);
export type ModeratedCommentView = Static<typeof ModeratedCommentSchema>;

export const CommentResponseSchema = Type.Object(
  { comment: componentRef('Comment', CommentSchema) },
  { additionalProperties: false },
);
export const CommentPageSchema = pageOf('comments', componentRef('Comment', CommentSchema));
export const ModeratedCommentPageSchema = pageOf('comments', componentRef('ModeratedComment', ModeratedCommentSchema));

export const LikesCountSchema = Type.Object({ likesCount: CountSchema }, { additionalProperties: false });

/** POST /comments/blog/{blogId}. */
export const newCommentBody = bodyOf({
  content: textField('Content', {
    minLength: 1,
    maxLength: COMMENT_LIMITS.content,
    description: `Trimmed. ${PLAIN_TEXT}`,
  }),
});
