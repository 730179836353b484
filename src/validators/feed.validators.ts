/** GET /feed.xml's query (src/schemas/feed.ts): anything else in it is ignored, as on the other reads. */
import { FEED_QUERY } from '../schemas/feed';
import { optionalQuery } from './common.validators';

export const feedValidators = optionalQuery({ tag: FEED_QUERY.tag.rules, author: FEED_QUERY.author.rules });
