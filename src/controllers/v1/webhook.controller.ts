/** /webhooks: admins register endpoints for events, look at their deliveries and replay one. */
import type { Request, Response } from 'express';
import { matchedData } from 'express-validator';
import { pageOf } from '../../services/pagination';
import type { WebhookService } from '../../services/webhook.service';

export function createWebhookController({ webhooks }: { webhooks: WebhookService }) {
  return {
    async register(req: Request, res: Response) {
      const { url, events, secret } = matchedData(req);
      res.status(201).json(await webhooks.register({ url, events, secret }));
    },

    async list(req: Request, res: Response) {
      const { limit, offset } = pageOf(matchedData(req));
      res.json({ limit, offset, ...(await webhooks.list({ limit, offset })) });
    },

    async remove(req: Request, res: Response) {
      await webhooks.remove(matchedData(req).webhookId);
      res.sendStatus(204);
    },

    async listDeliveries(req: Request, res: Response) {
      const data = matchedData(req);
      const { limit, offset } = pageOf(data);
      res.json({ limit, offset, ...(await webhooks.listDeliveries(data.webhookId, { limit, offset })) });
    },

    async replay(req: Request, res: Response) {
      const { webhookId, deliveryId } = matchedData(req);
      res.status(202).json({ delivery: await webhooks.replay(webhookId, deliveryId) });
    },
  };
}
