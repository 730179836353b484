/** A like ties a user to a blog; one per user and blog, which the unique index enforces. */
import { Schema, model, type HydratedDocument, type InferSchemaType } from 'mongoose';
import { readDeadline } from './read-deadline';

const likeSchema = new Schema(
  {
    blog: { type: Schema.Types.ObjectId, ref: 'Blog', required: true },
    // index: account deletion removes a user's likes
    user: { type: Schema.Types.ObjectId, ref: 'User', required: true, index: true },
  },
  { timestamps: { createdAt: true, updatedAt: false } },
);

// unique: one like per user and blog; also serves "which of these blogs has this user liked"
likeSchema.index({ user: 1, blog: 1 }, { unique: true });
// blog deletion removes its likes
likeSchema.index({ blog: 1 });

export type Like = InferSchemaType<typeof likeSchema>;
export type LikeDocument = HydratedDocument<Like>;
likeSchema.plugin(readDeadline);
export const LikeModel = model('Like', likeSchema);
