/** express-validator chains for /webhooks; the registration's fields and rules are src/schemas/webhook.ts's. */
import { checkSchema } from 'express-validator';
import { newWebhookBody } from '../schemas/webhook';
import { jsonContentType, objectIdParam, pagination } from './common.validators';
import { onlyFields } from './unknown-fields';

const webhookId = objectIdParam('webhookId', 'Webhook id');

export const registerWebhookValidators = [
  jsonContentType,
  onlyFields(newWebhookBody.fields),
  ...checkSchema(newWebhookBody.rules, ['body']),
];
export const listWebhooksValidators = pagination;
export const webhookIdValidators = [webhookId];
export const listDeliveriesValidators = [webhookId, ...pagination];
export const replayValidators = [webhookId, objectIdParam('deliveryId', 'Delivery id')];
