/**
 * Start-up migration of the blogs collection: blogs saved before cards existed get their excerpt and
 * reading time (lib/plain-text.ts), so lists never parse HTML. Started by server.ts in the background,
 * as a large collection would hold start-up for long; until it reaches a blog (or, after a failure, which
 * is logged, until the next start) that blog's card is worked out when it is read (blog.model.ts
 * blogView). Idempotent: once done it finds nothing to do, and instances running it at once only repeat
 * each other's writes.
 */
import type { Logger } from '../lib/logger';
import { cardOf, plainTextOf } from '../lib/plain-text';
import { searchTermsOf } from '../lib/search-text';
import { BlogModel } from './blog.model';

export async function backfillBlogCards(logger: Logger): Promise<void> {
  let fixed = 0;
  try {
    const missing = BlogModel.find({ $or: [{ excerpt: { $exists: false } }, { readingTime: { $exists: false } }] })
      .select('_id content')
      .lean()
      .cursor();
    for await (const blog of missing) {
      // not an edit: updatedAt stays
      await BlogModel.updateOne({ _id: blog._id }, { $set: cardOf(blog.content) }, { timestamps: false });
      fixed += 1;
    }
  } catch (error) {
    logger.error('blogs: could not add excerpts and reading times; the next start tries again', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  if (fixed > 0) logger.info('blogs: excerpts and reading times added to older blogs', { count: fixed });
}

/**
 * Blogs saved before search existed get their search terms (lib/search-text.ts); until then search does
 * not find them. Run in the background by server.ts after the card backfill, and idempotent alike.
 */
export async function backfillSearchTerms(logger: Logger): Promise<void> {
  let fixed = 0;
  try {
    const missing = BlogModel.find({ searchTerms: { $exists: false } })
      .select('_id title content')
      .lean()
      .cursor();
    for await (const blog of missing) {
      const searchTerms = searchTermsOf(blog.title, plainTextOf(blog.content));
      // not an edit: updatedAt stays
      await BlogModel.updateOne({ _id: blog._id }, { $set: { searchTerms } }, { timestamps: false });
      fixed += 1;
    }
  } catch (error) {
    logger.error('blogs: could not add search terms; the next start tries again', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  if (fixed > 0) logger.info('blogs: search terms added to older blogs', { count: fixed });
}
