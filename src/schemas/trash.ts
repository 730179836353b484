/** The trash's fields, said once: a trashed blog as admins list it, and DELETE /blogs/{blogId}'s switch. */
import { Type, type Static } from '@sinclair/typebox';
import type { ParamSchema } from 'express-validator';
import { BlogCardSchema, BlogSchema } from './blog';
import { DateTimeRef, ObjectIdRef, componentRef, pageOf, singleQuery } from './common';

/** How long a trashed blog is kept before the sweep purges it, unless TRASH_RETENTION_DAYS says otherwise. */
export const TRASH_RETENTION = { defaultDays: 30, minDays: 1, maxDays: 3650 } as const;

export const TrashedBlogSchema = Type.Object(
  {
    ...BlogCardSchema.properties,
    // only admins see the trash: its cards always say whether the post was out
    status: BlogSchema.properties.status,
    trashedAt: DateTimeRef,
    trashedBy: ObjectIdRef,
  },
  { additionalProperties: false, description: 'A blog in the trash: its card, when and by whom it was trashed' },
);
export type TrashedBlogView = Static<typeof TrashedBlogSchema>;
export const TrashPageSchema = pageOf('blogs', componentRef('TrashedBlog', TrashedBlogSchema));

/** `permanent` of DELETE /blogs/{blogId}: `true` deletes at once, as the interface's delete did. */
export const PERMANENT_QUERY = {
  schema: Type.Boolean({
    description: 'true: delete at once with banner, comments and likes; else the post goes to the trash',
  }),
  rules: {
    // given twice it would arrive as an array, which is truthy: a post deleted for good by an ambiguous request
    ...singleQuery('permanent'),
    isIn: { options: [['true', 'false']], errorMessage: 'permanent must be true or false', bail: true },
    toBoolean: true,
  } as ParamSchema,
};
