/**
 * Refuses fields a request body may not carry, each reported under its own name (400 ValidationError):
 * a client that sends `firstName` for `first_name`, or a read-only `role` on a profile update, hears about it
 * at once instead of getting a 200 that changed nothing. Applies to JSON bodies and to the text fields of
 * the blogs' multipart forms alike.
 *
 * A plain middleware rather than an express-validator chain: field selectors read `a.b`, `*` and "" as paths
 * and wildcards, while a body's keys must be named exactly as sent. It runs before the field checks, so a
 * request with unknown fields hears about those first.
 */
import type { NextFunction, Request, Response } from 'express';
import { RequestValidationError, type FieldError } from '../errors/http-errors';

/**
 * At most this many unknown fields are named, so that a body of thousands of keys cannot make the
 * answer many times its own size; the last one named says how many more there were.
 */
export const MAX_UNKNOWN_FIELDS_REPORTED = 20;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body's top-level fields must be among `allowed`; a missing or non-object body is left to the other checks. */
export function onlyFields(allowed: readonly string[]) {
  const known = new Set(allowed);
  const hint = allowed.length > 0 ? `allowed: ${allowed.join(', ')}` : 'this request takes no body fields';
  return function rejectUnknownFields(req: Request, _res: Response, next: NextFunction): void {
    if (!isPlainObject(req.body)) return next();
    const unknown = Object.keys(req.body).filter((field) => !known.has(field));
    if (unknown.length === 0) return next();
    // Object.fromEntries defines own properties, so even a field named "__proto__" is reported as sent.
    // The value is never echoed: an unknown field may well be a misnamed secret.
    const named = unknown.slice(0, MAX_UNKNOWN_FIELDS_REPORTED);
    const unnamed = unknown.length - named.length;
    const errors: Record<string, FieldError> = Object.fromEntries(
      named.map((field, index) => {
        const more = unnamed > 0 && index === named.length - 1 ? `; ${unnamed} more unknown fields not listed` : '';
        const msg = `Unknown field "${field}" (${hint})${more}`;
        return [field, { type: 'field', value: '', msg, path: field, location: 'body' }];
      }),
    );
    throw new RequestValidationError(errors);
  };
}
