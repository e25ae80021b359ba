/**
 * Which addresses `gateway:web_fetch` may connect to: public unicast addresses only, unless the operator's
 * allowlist names the address (a CIDR) or the URL's host name. Classification is ipaddr.js's (its special
 * ranges: loopback, private, link-local, unique-local, CGNAT, multicast, reserved, NAT64, 6to4, Teredo, ...);
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
 */
import ipaddr from 'ipaddr.js';

/** An address or host the operator allows although it is not public. */
export type AllowlistEntry = { kind: 'cidr'; range: string } | { kind: 'host'; host: string };

/** The operator's allowlist, parsed once. */
export interface CompiledAllowlist {
  readonly ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
  readonly hosts: ReadonlySet<string>;
}

/** Whether an address may be connected to, and if not, which kind of address it is. */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

// Well-known instance-metadata endpoints, named in the refusal so an operator recognises the attempt. Each is
// also inside a refused range (link-local, CGNAT, reserved, unique-local).
const METADATA_ADDRESSES: ReadonlySet<string> = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192', 'fd00:ec2::254']);

// IPv4-compatible IPv6 (::a.b.c.d, deprecated) is not among ipaddr.js's special ranges.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/;

/** Strips the brackets of an IPv6 literal host (`[::1]`) and lowercases the rest. */
export function normalizeHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower.replace(/\.$/, '');
}

/** Reads one allowlist entry: a CIDR (`10.0.0.0/8`), a single address (`127.0.0.1`, `::1`) or a host name. */
export function parseAllowlistEntry(entry: string): AllowlistEntry | { error: string } {
  const text = normalizeHost(entry.trim());
  if (text.includes('/')) {
    if (!ipaddr.isValidCIDR(text)) return { error: `is not a valid CIDR range, got ${JSON.stringify(entry)}` };
    const [address, prefix] = ipaddr.parseCIDR(text);
    return { kind: 'cidr', range: `${address.toString()}/${prefix}` };
  }
  if (ipaddr.isValid(text)) {
    const address = ipaddr.parse(text);
    return { kind: 'cidr', range: `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}` };
  }
  if (HOST_NAME.test(text)) return { kind: 'host', host: text };
  return { error: `must be a CIDR range, an IP address or a host name, got ${JSON.stringify(entry)}` };
}

/** Parses an allowlist whose entries were already checked by `parseAllowlistEntry`. */
export function compileAllowlist(entries: readonly AllowlistEntry[]): CompiledAllowlist {
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  const hosts = new Set<string>();
  for (const entry of entries) {
    if (entry.kind === 'host') hosts.add(entry.host);
    else ranges.push(ipaddr.parseCIDR(entry.range));
  }
  return { ranges, hosts };
}

/** An empty allowlist: only public addresses. */
export const NO_ALLOWLIST: CompiledAllowlist = compileAllowlist([]);

function inAllowedRange(address: ipaddr.IPv4 | ipaddr.IPv6, allowlist: CompiledAllowlist): boolean {
  return allowlist.ranges.some(([range, prefix]) => address.kind() === range.kind() && address.match(range, prefix));
}

/** Whether a host name (not an address) is allowlisted by name; its every address is then allowed. */
export function isAllowlistedHost(host: string, allowlist: CompiledAllowlist): boolean {
  return allowlist.hosts.has(normalizeHost(host));
}

/** Judges one IP address (v4 or v6, mapped forms included) against the policy and the allowlist. */
export function checkAddress(text: string, allowlist: CompiledAllowlist): AddressVerdict {
  const host = normalizeHost(text).replace(/%.*$/, '');
  if (!ipaddr.isValid(host)) return { allowed: false, reason: 'not an IP address' };
  // process() turns ::ffff:127.0.0.1 into 127.0.0.1, so a mapped address is judged as what it reaches.
  const address = ipaddr.process(host);
  if (inAllowedRange(address, allowlist)) return { allowed: true };
  if (METADATA_ADDRESSES.has(address.toString())) return { allowed: false, reason: 'a cloud metadata address' };
  const range = address.range();
  if (range !== 'unicast') return { allowed: false, reason: withArticle(`${describeRange(range)} address`) };
  if (address.kind() === 'ipv6' && address.match(IPV4_COMPATIBLE)) return { allowed: false, reason: 'an IPv4-compatible IPv6 address' };
  return { allowed: true };
}

function withArticle(text: string): string {
  return /^[aeiou]/.test(text) && !text.startsWith('uni') ? `an ${text}` : `a ${text}`;
}

function describeRange(range: string): string {
  switch (range) {
    case 'carrierGradeNat':
      return 'carrier-grade NAT (100.64.0.0/10)';
    case 'linkLocal':
      return 'link-local';
    case 'uniqueLocal':
      return 'unique-local';
    case 'rfc6052':
      return 'NAT64';
    case 'rfc6145':
      return 'IPv4-translated';
    default:
      return range.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  }
}
