/**
 * Reads the lifetimes used in configuration ("900", "90s", "15m", "12h", "7d", "2 weeks") in whole
 * seconds, with `ms`, the package jsonwebtoken reads its own lifetimes with. A bare number is seconds,
 * as jsonwebtoken reads a number (`ms` would read milliseconds). Anything else, or not a positive whole
 * number of seconds, is refused (undefined).
 */
import ms from 'ms';

export function parseDurationSeconds(text: string): number | undefined {
  const trimmed = text.trim();
  let seconds: number;
  if (/^\d+$/.test(trimmed)) seconds = Number(trimmed);
  else if (trimmed === '') return undefined;
  else seconds = ms(trimmed as ms.StringValue) / 1000;
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : undefined;
}

/**
 * Reads a duration in whole milliseconds ("20s", "1500ms", "5m"); a bare number is milliseconds, as the
 * `_MS` settings read it. Anything else, or a negative or fractional result, is refused (undefined).
 */
export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const millis = /^\d+$/.test(trimmed) ? Number(trimmed) : ms(trimmed as ms.StringValue);
  return typeof millis === 'number' && millis >= 0 && Number.isSafeInteger(millis) ? millis : undefined;
}
