/**
 * Opaque list cursors: where a page ended (its last item's sort value and _id) and which query it
 * belongs to, signed with HMAC-SHA256 so a client can neither forge a position nor carry one over to
 * another query. The key is derived from the access-token secret with a purpose label, so a cursor
 * can never pass for a token, nor a token's signature for a cursor.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** A sort value as a cursor carries it: a date (as its ISO text), a number, or null (a draft's publishedAt). */
export type CursorValue = Date | number | null;
export interface CursorPosition {
  value: CursorValue;
  id: string;
}

const PURPOSE = 'blog-list-cursor/v1';
const ID_PATTERN = /^[0-9a-f]{24}$/;

/** A stable fingerprint of a query (filter and sort): dates, ids and patterns said as text. */
export function queryFingerprint(query: unknown): string {
  const text = JSON.stringify(query, function (this: Record<string, unknown>, key, value: unknown) {
    const raw = key === '' ? value : this[key];
    if (raw instanceof Date) return { $date: raw.toISOString() };
    if (raw instanceof RegExp) return { $regex: String(raw) };
    return value;
  });
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

const encodeValue = (value: CursorValue) => (value instanceof Date ? { d: value.toISOString() } : value);
function decodeValue(raw: unknown): CursorValue | undefined {
  if (raw === null || (typeof raw === 'number' && Number.isFinite(raw))) return raw;
  if (raw && typeof raw === 'object' && typeof (raw as { d?: unknown }).d === 'string') {
    const date = new Date((raw as { d: string }).d);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  return undefined;
}

export function createCursorCodec(secret: string) {
  const key = createHmac('sha256', secret).update(PURPOSE).digest();
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

  function encode(fingerprint: string, position: CursorPosition): string {
    const payload = Buffer.from(JSON.stringify([fingerprint, encodeValue(position.value), position.id])).toString(
      'base64url',
    );
    return `${payload}.${sign(payload)}`;
  }

  /** The position, or null when the cursor is garbled, forged, or belongs to another query. */
  function decode(token: string, fingerprint: string): CursorPosition | null {
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined) return null;
    const expected = Buffer.from(sign(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const [boundTo, rawValue, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
      const value = decodeValue(rawValue);
      if (boundTo !== fingerprint || value === undefined || typeof id !== 'string' || !ID_PATTERN.test(id)) return null;
      return { value, id };
    } catch {
      return null;
    }
  }

  return { encode, decode };
}

export type CursorCodec = ReturnType<typeof createCursorCodec>;
