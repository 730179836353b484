/** GET /feed.xml's query (src/schemas/feed.ts): anything else in it is ignored, as on the other reads. */
import { checkSchema } from 'express-validator';
import { FEED_QUERY } from '../schemas/feed';

export const feedValidators = checkSchema({ tag: FEED_QUERY.tag.rules, author: FEED_QUERY.author.rules }, ['query']);
