/**
 * Turns express-validator's result into the spec's 400 body:
 * `{code: "ValidationError", errors: {<field>: {type, value, msg, path, location}}}`.
 */
import type { NextFunction, Request, Response } from 'express';
import { validationResult, type ValidationError } from 'express-validator';
import { RequestValidationError, type FieldError } from '../errors/http-errors';

/** Fields whose submitted value is never echoed back (it would travel through proxies and logs). */
const SECRET_FIELDS = new Set(['password', 'confirm_password', 'current_password', 'refreshToken', 'token', 'secret']);

/**
 * How much of a refused value is echoed back. The echo helps a client see what it sent; it must not
 * turn a 100 kB body into a 100 kB error (or a log line), nor walk a value nested thousands deep.
 */
export const ECHO_LIMITS = { characters: 200, depth: 5, items: 20 } as const;

/** The spec types `value` as a string; inputs of other types (objects, numbers, arrays) are shown as JSON, cut short. */
function displayValue(path: string, value: unknown): string {
  if (SECRET_FIELDS.has(path) || value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(boundedCopy(value, ECHO_LIMITS.depth));
  return text.length > ECHO_LIMITS.characters ? `${text.slice(0, ECHO_LIMITS.characters)}…` : text;
}

/**
 * A copy of a parsed JSON value, at most `depth` levels and `items` entries per level deep: what is
 * cut is shown as "…". Iterating a bounded copy cannot overflow the stack the way JSON.stringify of a
 * 5,000-level array did (RangeError, a 500).
 */
function boundedCopy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth === 0) return '…';
  if (Array.isArray(value)) {
    const items = value.slice(0, ECHO_LIMITS.items).map((item) => boundedCopy(item, depth - 1));
    return value.length > ECHO_LIMITS.items ? [...items, '…'] : items;
  }
  const entries = Object.entries(value);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of entries.slice(0, ECHO_LIMITS.items)) {
    // defineProperty: a "__proto__" key is kept as data, never as the copy's prototype
    Object.defineProperty(copy, key, {
      value: boundedCopy(item, depth - 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  if (entries.length > ECHO_LIMITS.items) copy['…'] = '…';
  return copy;
}

function toFieldError(error: ValidationError): FieldError {
  if (error.type === 'field') {
    return {
      type: error.type,
      value: displayValue(error.path, error.value),
      msg: String(error.msg),
      path: error.path,
      location: error.location,
    };
  }
  return { type: error.type, value: '', msg: String(error.msg), path: '', location: '' };
}

export function validate(req: Request, _res: Response, next: NextFunction): void {
  const result = validationResult(req);
  if (!result.isEmpty()) {
    const errors: Record<string, FieldError> = {};
    for (const [key, error] of Object.entries(result.mapped())) errors[key] = toFieldError(error);
    throw new RequestValidationError(errors);
  }
  next();
}
