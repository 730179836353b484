/**
 * GET /feed.xml and GET /sitemap.xml, at the app's root (not under /api/v1), after the rate limit: public
 * whatever PUBLIC_READS says, since they carry only published posts, linked into the front end (SITE_URL).
 */
import { AT_ROOT, COMMON_RESPONSES, DATABASE_RESPONSES, json, ref, respond, schemaRef } from './components';
import { FEEDS_NEED_SITE_URL } from '../services/feed.service';
import { FEED_QUERY } from '../schemas/feed';
import type { ContractPart, HeaderObject, Paths, ResponseObject } from './types';

const cacheHeaders: Record<string, HeaderObject> = {
  'Cache-Control': {
    description: "public, max-age and stale-while-revalidate: PUBLIC_READS's directives, or 60 and 300 seconds",
    schema: { type: 'string', pattern: '^public, max-age=\\d+, stale-while-revalidate=\\d+$' },
  },
  ETag: { description: 'A weak ETag: send it back as If-None-Match for a 304', schema: { type: 'string' } },
};
const xml = (description: string, mediaType: string, example: string): ResponseObject =>
  respond(description, { [mediaType]: { schema: { type: 'string' }, example } }, { headers: cacheHeaders });
const siteUrlUnset = respond(
  'SITE_URL is unset: the entries would have nowhere to link to (NotFound)',
  json(schemaRef('Error'), {
    code: 'NotFound',
    message: FEEDS_NEED_SITE_URL,
  }),
);
const notModified = respond('Unchanged since the ETag sent as If-None-Match; no body');

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
        description: `${FEED_QUERY[name].schema.description}. Give it at most once.`,
        schema: FEED_QUERY[name].schema,
      })),
      responses: {
        '200': xml(
          'The feed, newest publication first',
          'application/atom+xml',
          '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">…</feed>',
        ),
        '304': notModified,
        '400': ref('responses', 'ValidationFailed'),
        '404': respond(
          'SITE_URL is unset, or the author does not exist (NotFound)',
          json(schemaRef('Error'), { code: 'NotFound', message: 'User not found' }),
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
        '304': notModified,
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
