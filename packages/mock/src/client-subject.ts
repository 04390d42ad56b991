import ipaddr from 'ipaddr.js';

/**
 * Whom a request without a valid key is counted against (docs/interface.md, "Who is counted"):
 * its client's address, an IPv6 client as its whole /64 network (one host usually owns one, and
 * would otherwise have 2^64 fresh quotas), an IPv4-mapped address (`::ffff:203.0.113.9`) as the
 * IPv4 address it carries. As the server counts by default (apps/server/src/access/client-address.ts).
 */
export function clientSubject(address: string): string {
  if (!ipaddr.isValid(address)) return `ip:${address}`;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return `ip:${parsed.toString()}`;
  return `ip:${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
}
