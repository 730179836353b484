/**
 * A client's address as people write it: an IPv4 client reaching a dual-stack listener shows as
 * `::ffff:a.b.c.d` in `req.ip`, which is the plain `a.b.c.d` (what the rate limit counts under, and what
 * a sessions page shows); any other address as it is.
 */
import { isIPv4 } from 'node:net';

const MAPPED_IPV4 = '::ffff:';

export function plainAddress(ip: string): string {
  if (!ip.startsWith(MAPPED_IPV4)) return ip;
  const inner = ip.slice(MAPPED_IPV4.length);
  return isIPv4(inner) ? inner : ip;
}
