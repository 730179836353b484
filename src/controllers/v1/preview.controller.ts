/** Preview links to drafts: admins make and revoke them; whoever holds one reads that draft. */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import type { PreviewLinks } from '../../services/preview-links';
import { PREVIEW_LIFETIME } from '../../schemas/preview';

export function createPreviewController({ previewLinks }: { previewLinks: PreviewLinks }) {
  return {
    async create(req: Request, res: Response) {
      const { blogId, expiresIn = PREVIEW_LIFETIME.defaultMs } = matchedData(req);
      res.status(201).json(await previewLinks.create(blogId, expiresIn));
    },

    /** Never cached, never indexed: the draft is for whoever holds this link, now. */
    async read(req: Request, res: Response) {
      const blog = await previewLinks.read(matchedData(req).token);
      res.set({ 'Cache-Control': 'private, no-store', 'X-Robots-Tag': 'noindex' }).json({ blog });
    },

    async revoke(req: Request, res: Response) {
      await previewLinks.revokeAll(matchedData(req).blogId);
      res.sendStatus(204);
    },
  };
}
