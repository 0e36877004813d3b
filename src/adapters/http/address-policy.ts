import { BlockList, isIP } from 'node:net';

// The outbound address policy every SSRF-guarded client applies (guarded-http-client.ts).

/**
 * Addresses an outbound request must never reach unless private networks are allowed: loopback,
 * private ranges, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast,
 * documentation and reserved ranges, and IPv6 forms that embed IPv4 (mapped, NAT64, 6to4, Teredo).
 */
const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['::', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv6');
}
// BlockList matches an IPv4 address against IPv6 rules in its mapped form (::ffff:a.b.c.d): in
// REFUSED, a ::ffff:0:0/96 rule would refuse every IPv4 address. Mapped addresses get their own list.
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet('::ffff:0:0', 96, 'ipv6');

/** True when the address is private, loopback, link-local, metadata, reserved or IPv4-embedding. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return REFUSED.check(address, 'ipv4');
  // Every IPv4-mapped address is refused; the pattern also catches the dotted form on Node versions
  // whose BlockList does not parse it.
  if (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) || IPV4_MAPPED.check(address, 'ipv6')) return true;
  return REFUSED.check(address, 'ipv6');
}

/** True when the host is listed, or under a listed `*.suffix` (not the bare suffix), or the list is empty. */
export function isHostAllowed(hostname: string, allowedHosts: readonly string[]): boolean {
  if (allowedHosts.length === 0) return true;
  const host = normalHostname(hostname);
  return allowedHosts.some((pattern) => {
    const normal = pattern.trim().toLowerCase();
    return normal.startsWith('*.') ? host.endsWith(normal.slice(1)) : host === normalHostname(normal);
  });
}

/** Lower case, without IPv6 brackets or the root's trailing dot (`a.example.` is `a.example`). */
export function normalHostname(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}
