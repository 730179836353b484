/**
 * Building blocks shared by the per-endpoint validator chains.
 * Every field first proves it is a single string, so arrays and operator objects
 * such as `{"$gt": ""}` stop here with a 400 and never reach a query.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { body, checkSchema, param, type ParamSchema, type ValidationChain } from 'express-validator';
import { UnsupportedMediaType } from '../errors/http-errors';
import { PAGE_QUERY } from '../schemas/common';
import { onlyFields } from './unknown-fields';

export const JSON_OBJECT_MESSAGE = 'Request body must be a JSON object';
/**
 * The JSON body, when there is one, must be an object: express.json also parses arrays and, for
 * PUT /users/current whose fields are all optional, `[null]` would otherwise pass as an empty update.
 * (A scalar such as `"text"` never gets here: express.json refuses it, and the error handler answers the same.)
 */
export const jsonObjectBody: ValidationChain = body()
  .custom(
    (value: unknown) => value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value)),
  )
  .withMessage(JSON_OBJECT_MESSAGE);

/** What a JSON route says to a body of another type. */
export const JSON_CONTENT_TYPE_MESSAGE =
  'Request body must be sent as JSON, with the header Content-Type: application/json';

/**
 * A JSON route's body, when there is one, must say it is JSON: express.json leaves any other type unread,
 * so a bare `fetch` (text/plain) or a form (application/x-www-form-urlencoded) would otherwise meet "Email is
 * required", or a 200 that changed nothing. 415 in the spec's error shape instead. A request without a body
 * (no Content-Length, or 0, and no Transfer-Encoding) passes, whatever its Content-Type.
 */
export function jsonContentType(req: Request, _res: Response, next: NextFunction): void {
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (hasBody && !req.is('application/json')) throw new UnsupportedMediaType(JSON_CONTENT_TYPE_MESSAGE);
  next();
}

/**
 * The steps of a write that takes no body (refresh, logout, a like, every DELETE): a body with content
 * is refused as a JSON route refuses it, 415 for another type and 400 naming each field of a JSON one, rather
 * than ignored. A SPA sending `{"password": ...}` to confirm deleting an account would otherwise see the
 * account deleted with no check made. No body, or `{}`, passes: the interface's clients send none.
 * Needs `validate` after it (the JSON-object check).
 */
export const noBody: RequestHandler[] = [jsonContentType, onlyFields([]), jsonObjectBody];

export function objectIdParam(name: string, label: string): ValidationChain {
  return param(name).isMongoId().withMessage(`${label} must be a valid id`);
}

/**
 * Optional query parameters, each checked only when the request carries it. An absent optional parameter
 * passes its chain untouched, yet running a list's dozen chains for nothing (each selects its field and
 * records a context) was a sixth of a page's CPU (deep page: 1.50 → 1.24 ms, docs/performance.md). The
 * errors, their order (the rules' order) and the sanitized values are those of the chains run every time.
 */
export function optionalQuery(rules: Record<string, ParamSchema>): RequestHandler[] {
  const chains = Object.entries(rules).map(([name, rule]) => {
    if (rule.optional !== true) throw new Error(`optionalQuery: ${name} must be optional`);
    return { name, chain: checkSchema({ [name]: rule }, ['query']) };
  });
  return [
    async (req: Request, _res: Response, next: NextFunction) => {
      const query = req.query as Record<string, unknown>;
      for (const { name, chain } of chains) if (Object.hasOwn(query, name)) await chain.run(req);
      next();
    },
  ];
}

/** The page's query parameters, as src/schemas/common.ts defines them. */
export const PAGE_RULES = { limit: PAGE_QUERY.limit.rules, offset: PAGE_QUERY.offset.rules };
export const pagination = optionalQuery(PAGE_RULES);
