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
