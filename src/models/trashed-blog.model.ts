/**
 * The trash: blogs an admin deleted without `permanent=true`, kept whole in a collection of their own
 * (services/trash.service.ts), so that every read of `blogs` stays as it is and a trashed post is gone for
 * readers at once. Comments and likes stay where they are, under the blog's id, for a restore.
 */
import { Schema, model, type InferSchemaType } from 'mongoose';
import { readDeadline } from './read-deadline';

const trashedBlogSchema = new Schema(
  {
    // the blog's own id: trashing the same blog twice (a retry, two admins) keeps one copy
    _id: { type: Schema.Types.ObjectId, required: true },
    // the blog document as it was, restored as is
    blog: { type: Schema.Types.Mixed, required: true },
    // account deletion finds a user's trashed blogs by it
    author: { type: Schema.Types.ObjectId, required: true, index: true },
    // the orphan sweep keeps the banner of a trashed blog
    bannerKey: { type: String, index: true },
    trashedAt: { type: Date, required: true },
    trashedBy: { type: Schema.Types.ObjectId, required: true },
    // set by a restore as it begins: a purge leaves the copy alone (services/trash.service.ts)
    restoringAt: Date,
  },
  { versionKey: false },
);
// the admins' list, newest first; the purge of what is older than the retention
trashedBlogSchema.index({ trashedAt: -1, _id: -1 });

export type TrashedBlog = InferSchemaType<typeof trashedBlogSchema>;
trashedBlogSchema.plugin(readDeadline);
export const TrashedBlogModel = model('TrashedBlog', trashedBlogSchema, 'trashed_blogs');
