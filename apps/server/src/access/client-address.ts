import ipaddr from 'ipaddr.js';

/** Four decimal octets, 0-255, without leading zeros: the form ipaddr.js would print anyway. */
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const CANONICAL_IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/**
 * Whom a request without a valid key is counted against: its client's address, where an IPv6
 * client counts as its whole network prefix (`2001:db8:1:2::/64`). A single host commonly owns
 * a /64 or more, so counting single IPv6 addresses would hand it 2^64 fresh quotas. An IPv4
 * address that a dual-stack listener reports as IPv4-mapped IPv6 (`::ffff:203.0.113.9`) counts
 * as the IPv4 address it carries.
 */
export function clientSubject(address: string, ipv6PrefixLength: number): string {
  // What Node reports for an IPv4 client is already in its one canonical form: no parse needed
  // (one in every request shed under a crowd, measured in docs/performance.md).
  if (CANONICAL_IPV4.test(address)) return `ip:${address}`;
  if (!ipaddr.isValid(address)) return `ip:${address}`;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return `ip:${parsed.toString()}`;
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${ipv6PrefixLength}`);
  return `ip:${network.toString()}/${ipv6PrefixLength}`;
}

/**
 * Which proxies' `X-Forwarded-For` is believed, in Express's `trust proxy` terms: none (`false`),
 * a number of hops in front of the server, or the addresses and CIDR ranges of trusted proxies.
 */
export type TrustedProxies = false | number | string[];

export const TRUST_PROXY_FORMS =
  'a number of proxy hops in front of the server (one load balancer: 1) or a comma-separated list of trusted proxy addresses and CIDR ranges';

/**
 * `TRUST_PROXY` as written by an operator. `true` is refused: it believes the left-most
 * `X-Forwarded-For` entry, which every client writes itself.
 */
export function parseTrustProxy(value: string): TrustedProxies | Error {
  const text = value.trim();
  if (text === '' || text === 'false') return false;
  if (text === 'true')
    return new Error(`"true" lets any client pick its address; use ${TRUST_PROXY_FORMS}`);
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  const invalid = entries.filter((entry) => !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry));
  if (invalid.length > 0) {
    return new Error(
      `${invalid.map((entry) => `"${entry}"`).join(', ')} is not an address or CIDR range; use ${TRUST_PROXY_FORMS}`,
    );
  }
  return entries;
}
