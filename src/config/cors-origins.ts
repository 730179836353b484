/**
 * CORS_ORIGINS, checked at boot: a browser sends its Origin as exactly `scheme://host[:port]`, so anything
 * else in the list would never match and fail silently. A trailing slash (as copied from the address bar)
 * is dropped with a warning; `*` and values that are not origins stop start-up with one line.
 */
import { ConfigError } from './errors';

export function parseCorsOrigins(values: readonly string[]): { origins: string[]; warnings: string[] } {
  const origins: string[] = [];
  const warnings: string[] = [];
  for (const value of values) {
    if (value === '*') {
      throw new ConfigError(
        'CORS_ORIGINS: "*" is not allowed: browsers refuse credentialed requests (the refresh cookie) from a wildcard; list each origin, e.g. https://app.example.com',
      );
    }
    const origin = originOf(value);
    if (!origin) {
      throw new ConfigError(
        `CORS_ORIGINS: "${value}" is not an origin: write scheme://host[:port] with no path, e.g. http://localhost:5173`,
      );
    }
    if (origin !== value)
      warnings.push(`CORS_ORIGINS: "${value}" read as "${origin}", the form browsers send in their Origin header`);
    if (!origins.includes(origin)) origins.push(origin);
  }
  return { origins, warnings };
}

/** `scheme://host[:port]` with at most a trailing slash, normalised as browsers send it; undefined otherwise. */
function originOf(value: string): string | undefined {
  if (!/^https?:\/\/[^/?#@\s]+\/?$/i.test(value)) return undefined;
  try {
    const url = new URL(value);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}
