/** The query of GET /feed.xml: a tag's feed, an author's feed, or both at once (posts carrying both). */
import { Type } from '@sinclair/typebox';
import { BLOG_LIST_QUERY } from './blog';
import type { Field } from './common';

export const FEED_QUERY = {
  tag: {
    schema: Type.String({ minLength: 1, description: 'Only posts with this tag (normalised as tags are)' }),
    rules: BLOG_LIST_QUERY.tag.rules,
  },
  author: {
    schema: Type.String({ pattern: '^[0-9a-fA-F]{24}$', description: "Only this author's posts (a user's _id)" }),
    rules: BLOG_LIST_QUERY.author.rules,
  },
} satisfies Record<string, Field>;
