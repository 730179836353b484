/**
 * Building blocks shared by the per-endpoint validator chains.
 * Every field first proves it is a single string, so arrays and operator objects
 * such as `{"$gt": ""}` stop here with a 400 and never reach a query.
 */
import { body, checkSchema, param, type ValidationChain } from 'express-validator';
import { PAGE_QUERY } from '../schemas/common';

/**
 * The JSON body, when there is one, must be an object: express.json also parses arrays and, for
 * PUT /users/current whose fields are all optional, `[null]` would otherwise pass as an empty update.
 */
export const jsonObjectBody: ValidationChain = body()
  .custom(
    (value: unknown) => value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value)),
  )
  .withMessage('Request body must be a JSON object');

export function objectIdParam(name: string, label: string): ValidationChain {
  return param(name).isMongoId().withMessage(`${label} must be a valid id`);
}

/** The page's query parameters, as src/schemas/common.ts defines them. */
export const pagination: ValidationChain[] = checkSchema(
  { limit: PAGE_QUERY.limit.rules, offset: PAGE_QUERY.offset.rules },
  ['query'],
);
