/** /trash: the posts admins deleted without permanent=true, to list, restore, purge or empty. */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import { signedInUser } from '../../lib/request-locals';
import { pageOf } from '../../services/pagination';
import type { TrashService } from '../../services/trash.service';

export function createTrashController({ trash }: { trash: TrashService }) {
  return {
    async list(req: Request, res: Response) {
      const { limit, offset } = pageOf(matchedData(req));
      res.json({ limit, offset, ...(await trash.list(signedInUser(res), { limit, offset })) });
    },

    async restore(req: Request, res: Response) {
      res.json({ blog: await trash.restore(matchedData(req).blogId, signedInUser(res)) });
    },

    async purge(req: Request, res: Response) {
      await trash.purgeOne(matchedData(req).blogId);
      res.sendStatus(204);
    },

    async empty(_req: Request, res: Response) {
      await trash.empty();
      res.sendStatus(204);
    },
  };
}
