/**
 * The feeds at the root, beside the probes (not under /api/v1: feed readers and crawlers look there):
 * GET /feed.xml (Atom; ?tag=, ?author=) and GET /sitemap.xml. Public whatever PUBLIC_READS says, since they
 * carry only published posts, and cacheable by any CDN.
 */
import { Router } from 'express';
import type { Config } from '../config';
import { createFeedController } from '../controllers/feed.controller';
import { alwaysPublic } from '../middlewares/public-cache';
import { validate } from '../middlewares/validate';
import type { FeedService } from '../services/feed.service';
import { feedValidators } from '../validators/feed.validators';

export const FEED_PATHS = ['/feed.xml', '/sitemap.xml'] as const;

export function feedRoutes(deps: { feeds: FeedService; config: Config }): Router {
  const feeds = createFeedController(deps);
  const router = Router();
  router.use([...FEED_PATHS], alwaysPublic(deps.config.publicCache));
  router.get('/feed.xml', feedValidators, validate, feeds.getFeed);
  router.get('/sitemap.xml', feeds.getSitemap);
  return router;
}
