/**
 * Building blocks shared by the per-endpoint validator chains.
 * Every field first proves it is a single string, so arrays and operator objects
 * such as `{"$gt": ""}` stop here with a 400 and never reach a query.
 */
import { body, param, query, type ValidationChain } from 'express-validator';
import { PAGINATION } from '../schemas/common';

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

/**
 * An optional query parameter given at most once: `?limit=5&limit=6` arrives as an array,
 * which standard validators would check item by item and let through.
 */
const singleQuery = (name: string, label: string) =>
  query(name).optional().not().isArray().withMessage(`${label} must be given once`).bail();

/** `limit` 1..50 and `offset` 0..100,000 as integers; controllers apply the defaults (20, 0) with services/pagination.ts pageOf. */
export const pagination: ValidationChain[] = [
  singleQuery('limit', 'Limit')
    .isInt({ min: 1, max: PAGINATION.maxLimit })
    .withMessage(`Limit must be an integer between 1 and ${PAGINATION.maxLimit}`)
    .toInt(),
  singleQuery('offset', 'Offset')
    .isInt({ min: 0, max: PAGINATION.maxOffset })
    .withMessage(`Offset must be an integer between 0 and ${PAGINATION.maxOffset}`)
    .toInt(),
];
