import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which range an IP address belongs to, for the SSRF guard; the ranges are ipaddr.js's
 * (kept with the IANA special-purpose registries), not hand-kept. Only 'unicast' is public.
 *
 * Beyond ipaddr.js's own ranges:
 * - IPv6 is public only inside global unicast 2000::/3; anything else is 'reserved' (IETF).
 * - IPv4-compatible ::a.b.c.d (deprecated, RFC 4291) is 'ipv4Compatible' and always refused:
 *   no receiver needs it, and some stacks route it to the IPv4 address it carries.
 * - IPv4-mapped ::ffff:a.b.c.d is judged as the IPv4 address it carries: the OS connects to
 *   that IPv4 address, and dns.lookup may answer in this form.
 * - NAT64 with the well-known prefix 64:ff9b::/96 is judged as the IPv4 address it carries:
 *   an IPv6-only cluster with DNS64 reaches every IPv4-only receiver this way, and RFC 6052
 *   forbids the prefix for non-global IPv4, so a private one behind it is refused.
 * - The local-use NAT64 prefix 64:ff9b:1::/48, IPv4-translated ::ffff:0:0:0/96, 6to4 2002::/16
 *   and Teredo 2001::/32 are refused whatever they carry: where the IPv4 address sits (or how
 *   it is obscured) depends on the network, and no receiver needs them.
 */
export function addressRange(address: string): string {
  // node's strict check: ipaddr.js also reads forms such as '2130706433' as addresses.
  const family = isIP(address);
  if (family === 4) return ipaddr.IPv4.parse(address).range();
  if (family === 6) return ipv6Range(ipaddr.IPv6.parse(address));
  return 'invalid';
}

/** The guard's question: undefined when `address` is public, else the range that refuses it. */
export function nonPublicRange(address: string): string | undefined {
  const range = addressRange(address);
  return range === 'unicast' ? undefined : range;
}

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

function ipv6Range(address: ipaddr.IPv6): string {
  const range: string = address.range();
  if (range === 'ipv4Mapped' || (range === 'rfc6052' && address.match(NAT64_WELL_KNOWN))) {
    return embeddedIPv4(address).range();
  }
  if (range !== 'unicast') return range;
  if (address.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  if (!address.match(GLOBAL_UNICAST)) return 'reserved';
  return 'unicast';
}

/** The IPv4 address in the last 32 bits (where both ::ffff:0:0/96 and 64:ff9b::/96 put it). */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [high, low] = address.parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * A URL host (as `new URL().hostname` writes it) that is not public without asking DNS: a
 * literal address that is not public, or `localhost` and its subdomains (RFC 6761 reserves
 * them for loopback). Undefined for any other name: what it resolves to is judged at send time.
 */
export function nonPublicHost(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(bare)) return nonPublicRange(bare);
  const name = bare.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') ? 'loopback' : undefined;
}

/** A range in words, for messages a person reads; unlisted ranges keep ipaddr.js's name. */
const RANGE_WORDS: Record<string, string> = {
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT (shared address space)',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local (deprecated)',
  reserved: 'reserved (documentation, benchmarking or IETF-reserved)',
  ipv4Compatible: 'IPv4-compatible IPv6 (deprecated)',
  rfc6145: 'IPv4-translated IPv6',
  rfc6052: 'NAT64 with a local-use prefix',
  teredo: 'Teredo',
  invalid: 'not an IP address',
};

export function describeRange(range: string): string {
  return RANGE_WORDS[range] ?? range;
}
