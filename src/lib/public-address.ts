/**
 * Whether an IP address is one a webhook may reach: not loopback, private, link-local, unique-local,
 * site-local, CGNAT, multicast, unspecified, reserved or for documentation, in IPv4 or IPv6 (IPv4-mapped
 * IPv6 judged as its IPv4; the deprecated forms that carry an IPv4, compatible, 6to4 and Teredo, refused), so
 * webhooks cannot be aimed at the operator's internal network. Checked at registration and again at
 * delivery, on the very address the request then connects to (DNS rebinding).
 */
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
const v4: Array<[string, number]> = [
  ['0.0.0.0', 8], // unspecified, "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation (TEST-NET-1, -2, -3): never a real receiver
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const v6: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback, and IPv4-compatible (deprecated: `::127.0.0.1` is 127.0.0.1 to some stacks)
  ['64:ff9b::', 96], // NAT64 of any IPv4
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: an IPv4 inside, obfuscated
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (deprecated): an IPv4 inside (2002:7f00:1:: is 127.0.0.1's)
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, private in use)
  ['ff00::', 8], // multicast
];
for (const [net, prefix] of v4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of v6) blocked.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:127.0.0.1`, `::ffff:7f00:1`), else undefined. */
function mappedIpv4(address: string): string | undefined {
  const match = /^::ffff:(?:0:)?(.+)$/i.exec(address);
  if (!match) return undefined;
  const rest = match[1]!;
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 4) return !blocked.check(bare, 'ipv4');
  const mapped = mappedIpv4(bare);
  if (mapped !== undefined) return !blocked.check(mapped, 'ipv4');
  return !blocked.check(bare, 'ipv6');
}
