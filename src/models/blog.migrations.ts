/**
 * Start-up migration of the blogs collection: a blog whose excerpt, reading time and search terms were
 * not worked out by the rules of now (lib/plain-text.ts PLAIN_TEXT_RULES: saved before cards or search
 * existed, or before a rule changed) gets them worked out again, so lists never parse HTML and search
 * finds what the text says. An excerpt the admin wrote is kept. Started by server.ts in the background, as
 * a large collection would hold start-up for long; until it reaches a blog (or, after a failure, which is
 * logged, until the next start) a blog without a card gets one worked out when it is read (blog.model.ts
 * blogView). Idempotent: once done it finds nothing to do, and instances running it at once only repeat
 * each other's writes.
 */
import type { Logger } from '../lib/logger';
import { PLAIN_TEXT_RULES } from '../lib/plain-text';
import { BlogModel, derivedTextOf } from './blog.model';

export async function backfillBlogText(logger: Logger): Promise<void> {
  let fixed = 0;
  try {
    const stale = BlogModel.find({ textRules: { $ne: PLAIN_TEXT_RULES } })
      .select('_id title content customExcerpt updatedAt')
      .lean()
      .cursor();
    for await (const blog of stale) {
      const derived = derivedTextOf(blog);
      // not an edit: updatedAt stays. An edit since the blog was read wins; the next start looks at it again.
      const { matchedCount } = await BlogModel.updateOne(
        { _id: blog._id, updatedAt: blog.updatedAt },
        { $set: derived },
        { timestamps: false },
      );
      fixed += matchedCount;
    }
  } catch (error) {
    logger.error('blogs: could not work out excerpts and search terms again; the next start tries again', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  if (fixed > 0) logger.info('blogs: excerpts, reading times and search terms worked out again', { count: fixed });
}
