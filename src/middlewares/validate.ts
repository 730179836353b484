/**
 * Turns express-validator's result into the spec's 400 body:
 * `{code: "ValidationError", errors: {<field>: {type, value, msg, path, location}}}`.
 */
import type { NextFunction, Request, Response } from 'express';
import { validationResult, type ValidationError } from 'express-validator';
import { RequestValidationError, type FieldError } from '../errors/http-errors';

/** Fields whose submitted value is never echoed back (it would travel through proxies and logs). */
const SECRET_FIELDS = new Set(['password', 'refreshToken']);

/** The spec types `value` as a string; inputs of other types (objects, numbers, arrays) are shown as JSON. */
function displayValue(path: string, value: unknown): string {
  if (SECRET_FIELDS.has(path) || value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function toFieldError(error: ValidationError): FieldError {
  if (error.type === 'field') {
    return { type: error.type, value: displayValue(error.path, error.value), msg: String(error.msg), path: error.path, location: error.location };
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
