/**
 * Variants for the banners of blogs stored before variants existed (`npm run banners:backfill`). Each
 * blog is done on its own, a few at a time (the image work itself waits its turn for the CPU bound of
 * services/banner-image.ts), and recorded by a conditional update: only if the blog still has that banner
 * and no variants yet. So a second run, or one on another machine at the same time, finds nothing to do
 * or records nothing twice (both make the same files or URLs), and a banner replaced meanwhile keeps the
 * new one's variants; what was made for a banner no blog names any more is removed.
 */
import pLimit from 'p-limit';
import type { Types } from 'mongoose';
import type { Logger } from '../lib/logger';
import { BlogModel } from '../models/blog.model';
import type { BannerStorage, StoredBanner } from './storage';

/** Blogs read per page and done at once: the page bounds memory, the limit the concurrent storage calls. */
const PAGE_SIZE = 100;
const CONCURRENCY = 4;

export interface BackfillReport {
  blogsChecked: number;
  variantsAdded: number;
  /** Blogs whose banner could not be done now (a missing file, storage down): the next run tries again. */
  failed: string[];
}

const WITHOUT_VARIANTS = { 'banner.key': { $exists: true }, 'banner.variants': { $exists: false } };

export function createBannerBackfillService({ storage, logger }: { storage: BannerStorage; logger: Logger }) {
  async function backfillOne(blogId: Types.ObjectId, banner: StoredBanner, report: BackfillReport): Promise<void> {
    const id = String(blogId);
    try {
      const variants = await storage.addVariants(banner);
      const { modifiedCount } = await BlogModel.updateOne(
        { _id: blogId, 'banner.key': banner.key, 'banner.variants': { $exists: false } },
        { $set: { 'banner.variants': variants } },
        { timestamps: false },
      );
      if (modifiedCount) {
        report.variantsAdded += 1;
        return;
      }
      // done by another run (same files), or the banner was replaced or the blog deleted meanwhile
      if (!(await BlogModel.exists({ 'banner.key': banner.key }))) await storage.remove(banner.key);
    } catch (error) {
      report.failed.push(id);
      logger.warn(`banner backfill: blog ${id} failed; the next run tries again`, {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async function backfill(): Promise<BackfillReport> {
    const report: BackfillReport = { blogsChecked: 0, variantsAdded: 0, failed: [] };
    const limit = pLimit(CONCURRENCY);
    // pages in _id order, each after the last one seen: blogs done meanwhile drop out of the filter without
    // shifting the pages
    let after: Types.ObjectId | undefined;
    for (;;) {
      const page = await BlogModel.find({ ...WITHOUT_VARIANTS, ...(after ? { _id: { $gt: after } } : {}) })
        .select({ banner: 1 })
        .sort({ _id: 1 })
        .limit(PAGE_SIZE)
        .lean();
      if (page.length === 0) break;
      after = page.at(-1)!._id;
      report.blogsChecked += page.length;
      await Promise.all(
        page.map((blog) => limit(() => backfillOne(blog._id, blog.banner as unknown as StoredBanner, report))),
      );
    }
    logger.info(
      `banner backfill: ${report.blogsChecked} banners without variants, ${report.variantsAdded} done, ${report.failed.length} failed`,
    );
    return report;
  }

  return { backfill };
}
