/**
 * GET /feed.xml and GET /sitemap.xml, at the app's root (not under /api/v1), after the rate limit: public
 * whatever PUBLIC_READS says, since they carry only published posts, linked into the front end (SITE_URL).
 */
import {
  AT_ROOT,
  CACHE_HEADERS,
  COMMON_RESPONSES,
  DATABASE_RESPONSES,
  NOT_MODIFIED,
  json,
  ref,
  respond,
  schemaRef,
  sentence,
} from './components';
import { FEEDS_NEED_SITE_URL } from '../services/feed.service';
import { FEED_QUERY } from '../schemas/feed';
import type { ContractPart, Paths, ResponseObject } from './types';

const xml = (description: string, mediaType: string, example: string): ResponseObject =>
  respond(description, { [mediaType]: { schema: { type: 'string' }, example } }, { headers: CACHE_HEADERS.public });
const siteUrlUnset = respond(
  'SITE_URL is unset: the entries would have nowhere to link to (NotFound)',
  json(schemaRef('Error'), {
    code: 'NotFound',
    message: FEEDS_NEED_SITE_URL,
  }),
);

const feedPaths: Paths = {
  '/feed.xml': {
    servers: AT_ROOT,
    get: {
      operationId: 'getFeed',
      tags: ['Feeds'],
      summary: "Atom feed of the 50 latest published posts (a tag's, an author's, or both)",
      description:
        'Entries carry title, link (SITE_URL/posts/{slug}), a stable id, published and updated dates, author name, ' +
        'the excerpt as plain-text summary (never the content) and the tags as categories. Never drafts.',
      security: [],
      parameters: (['tag', 'author'] as const).map((name) => ({
        name,
        in: 'query' as const,
        description: `${sentence(FEED_QUERY[name].schema.description)} Give it at most once.`,
        schema: FEED_QUERY[name].schema,
      })),
      responses: {
        '200': xml(
          'The feed, newest publication first',
          'application/atom+xml',
          '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">…</feed>',
        ),
        '304': NOT_MODIFIED,
        '400': ref('responses', 'ValidationFailed'),
        '404': respond(
          'SITE_URL is unset, or `author` published nothing (an unknown id alike) (NotFound)',
          json(schemaRef('Error'), { code: 'NotFound', message: 'No published posts by this author' }),
        ),
        ...COMMON_RESPONSES,
        ...DATABASE_RESPONSES,
      },
    },
  },
  '/sitemap.xml': {
    servers: AT_ROOT,
    get: {
      operationId: 'getSitemap',
      tags: ['Feeds'],
      summary: "Sitemap of the published posts (the newest 50,000, the protocol's limit per file)",
      security: [],
      responses: {
        '200': xml(
          "The sitemap: each post's link and last change",
          'application/xml',
          '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">…</urlset>',
        ),
        '304': NOT_MODIFIED,
        '404': siteUrlUnset,
        ...COMMON_RESPONSES,
        ...DATABASE_RESPONSES,
      },
    },
  },
};

export const feedContract: ContractPart = {
  paths: feedPaths,
  tags: [{ name: 'Feeds', description: 'Atom feed and sitemap of the published posts, at the root' }],
};
