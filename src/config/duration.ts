/**
 * Parses the lifetimes used in configuration: "900", "90s", "15m", "12h", "7d".
 * A bare number is seconds, as jsonwebtoken reads it.
 */
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

export function parseDurationSeconds(text: string): number | undefined {
  const match = /^(\d+)\s*([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2] || 's'];
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : undefined;
}
