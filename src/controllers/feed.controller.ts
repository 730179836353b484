/** GET /feed.xml and GET /sitemap.xml: the published posts for feed readers and search engines. */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import type { Config } from '../config';
import { NotFound } from '../errors/http-errors';
import { siteLinks } from '../lib/site-links';
import { FEEDS_NEED_SITE_URL, type FeedLinks, type FeedService } from '../services/feed.service';

export function createFeedController({ feeds, config }: { feeds: FeedService; config: Config }) {
  const site = siteLinks(config.siteUrl);
  const links: FeedLinks | undefined = site && { site, siteUrl: config.siteUrl!, publicUrl: config.publicUrl };
  const linksOrNotFound = () => {
    if (!links) throw new NotFound(FEEDS_NEED_SITE_URL);
    return links;
  };

  return {
    async getFeed(req: Request, res: Response) {
      const feedLinks = linksOrNotFound();
      const { tag, author } = matchedData(req) as { tag?: string; author?: string };
      const xml = await feeds.atomFeed({ tag, authorId: author }, feedLinks);
      res.type('application/atom+xml; charset=utf-8').send(xml);
    },

    async getSitemap(_req: Request, res: Response) {
      const xml = await feeds.sitemap(linksOrNotFound());
      res.type('application/xml; charset=utf-8').send(xml);
    },
  };
}
