import { Router } from 'express';
import { createWebhookController } from '../../controllers/v1/webhook.controller';
import { authorize } from '../../middlewares/authorize';
import { validate } from '../../middlewares/validate';
import { noBody } from '../../validators/common.validators';
import {
  listDeliveriesValidators,
  listWebhooksValidators,
  registerWebhookValidators,
  replayValidators,
  webhookIdValidators,
} from '../../validators/webhook.validators';
import type { RouteDeps } from './deps';

/** Admins only: a webhook's URL and secret reach outside the API. */
export function webhookRoutes(deps: RouteDeps): Router {
  const webhooks = createWebhookController(deps);
  const router = Router();
  router.use(deps.authenticate, authorize('webhooks:manage'));
  router.post('/', registerWebhookValidators, validate, webhooks.register);
  router.get('/', listWebhooksValidators, validate, webhooks.list);
  router.delete('/:webhookId', webhookIdValidators, noBody, validate, webhooks.remove);
  router.get('/:webhookId/deliveries', listDeliveriesValidators, validate, webhooks.listDeliveries);
  router.post('/:webhookId/deliveries/:deliveryId/replay', replayValidators, noBody, validate, webhooks.replay);
  return router;
}
