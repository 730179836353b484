/** Recognises MongoDB driver errors the API turns into client errors. */

interface DuplicateKeyError {
  code: number;
  keyPattern?: Record<string, unknown>;
  keyValue?: Record<string, unknown>;
  message?: string;
}

export function isDuplicateKeyError(error: unknown): error is DuplicateKeyError {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

/**
 * The field a duplicate-key error is about. MongoDB names it in `keyPattern`; the offline stand-in
 * only in the message ("... index: email_1 dup key ..."), so both are read.
 */
export function duplicateKeyField(error: unknown): string | undefined {
  if (!isDuplicateKeyError(error)) return undefined;
  const fromPattern = error.keyPattern && Object.keys(error.keyPattern)[0];
  if (fromPattern) return fromPattern;
  const fromValue = error.keyValue && Object.keys(error.keyValue)[0];
  if (fromValue) return fromValue;
  return /index: (\w+?)_-?1/.exec(error.message ?? '')?.[1];
}
