/** A comment: plain text by a signed-in user on a blog they may see. */
import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { readDeadline } from './read-deadline';
import { maxCharacters } from './text-limits';

import { COMMENT_LIMITS, CommentSchema } from '../schemas/comment';
import { viewOf } from '../schemas/common';

export { COMMENT_LIMITS };

const commentSchema = new Schema(
  {
    blog: { type: Schema.Types.ObjectId, ref: 'Blog', required: true },
    // index: account deletion removes a user's comments
    author: { type: Schema.Types.ObjectId, ref: 'User', required: true, index: true },
    content: { type: String, required: true, validate: maxCharacters(COMMENT_LIMITS.content) },
  },
  {
    timestamps: true,
    toJSON: {
      // the view of src/schemas/comment.ts, in its order; a deleted author shows as null
      transform: (_document, result: Record<string, unknown>) => viewOf(CommentSchema, result, { author: null }),
    },
  },
);

// GET /comments/blog/{blogId} lists a blog's comments newest first; blog deletion removes them
commentSchema.index({ blog: 1, createdAt: -1, _id: -1 });
// GET /comments (moderation) lists every comment newest first
commentSchema.index({ createdAt: -1, _id: -1 });

export type Comment = InferSchemaType<typeof commentSchema>;
export type CommentDocument = HydratedDocument<Comment>;
commentSchema.plugin(readDeadline);
export const CommentModel = model('Comment', commentSchema);
