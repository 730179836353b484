/**
 * A JSON body is Unicode text, sent as UTF-8: two checks around express.json.
 * - Before it, the declared charset (`utf8Json`).
 * - After it, the strings (`unicodeJsonBody`). JSON's `\ud800` escape can name half of a surrogate pair
 *   alone, which is no character: validator's isEmail threw on it (a 500), and elsewhere it was stored
 *   as U+FFFD, so a password or a name read back differently from what was sent. Refused whole instead,
 *   keys included, before any route reads the body.
 */
import type { NextFunction, Request, Response } from 'express';
import { BadRequest, UnsupportedMediaType } from '../errors/http-errors';

/** The charset a Content-Type names, lower-cased; undefined when it names none. */
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

/**
 * JSON travels as UTF-8 (RFC 8259, 8.1). body-parser would also decode a body declared utf-7 or utf-16,
 * and a client's mistake there reads as an empty body ("Email is required"): 415, as for an unknown charset.
 * Before express.json.
 */
export function utf8Json(req: Request, _res: Response, next: NextFunction): void {
  const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && req.is('application/json'))
    throw new UnsupportedMediaType('Unsupported request body encoding: JSON is sent as UTF-8');
  next();
}

/** Half of a surrogate pair without its other half (the regex reads UTF-16 code units: no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Walks the parsed body without recursion: express.json accepts bodies nested thousands deep. */
function holdsLoneSurrogate(body: unknown): boolean {
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return true;
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (LONE_SURROGATE.test(key)) return true;
        pending.push(item);
      }
    }
  }
  return false;
}

export function unicodeJsonBody(req: Request, _res: Response, next: NextFunction): void {
  if (typeof req.body === 'object' && req.body !== null && holdsLoneSurrogate(req.body))
    throw new BadRequest('Request body holds a string that is not Unicode text (a lone surrogate such as \\ud800)');
  next();
}
