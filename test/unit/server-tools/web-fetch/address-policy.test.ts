import { describe, expect, it } from 'vitest';
import { checkAddress, compileAllowlist, isAllowlistedHost, NO_ALLOWLIST, parseAllowlistEntry, type AllowlistEntry } from '#src/server-tools/web-fetch/address-policy.ts';

function allowlist(...entries: string[]) {
  return compileAllowlist(entries.map((entry) => parseAllowlistEntry(entry) as AllowlistEntry));
}

describe('which addresses web fetch may connect to', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.0.1', 'a private address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['169.254.170.2', 'a cloud metadata address'],
    ['169.254.1.1', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT (100.64.0.0/10) address'],
    ['100.100.100.200', 'a cloud metadata address'],
    ['192.0.0.192', 'a cloud metadata address'],
    ['0.0.0.0', 'an unspecified address'],
    ['255.255.255.255', 'a broadcast address'],
    ['224.0.0.1', 'a multicast address'],
    ['240.0.0.1', 'a reserved address'],
    ['::1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:10.0.0.1', 'a private address'],
    ['::ffff:169.254.169.254', 'a cloud metadata address'],
    ['::127.0.0.1', 'a loopback address'],
    ['::7f00:1', 'an IPv4-compatible IPv6 address'],
    ['::a00:1', 'an IPv4-compatible IPv6 address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['fc00::1', 'a unique-local address'],
    ['fd12:3456::1', 'a unique-local address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['64:ff9b::a00:1', 'a NAT64 address'],
    ['2002:7f00:1::', 'a 6to4 address'],
    ['2001::1', 'a teredo address'],
    ['ff02::1', 'a multicast address'],
    ['[::1]', 'a loopback address'],
    ['not-an-address', 'not an IP address'],
  ])('%s is refused: %s', (address, reason) => {
    expect(checkAddress(address, NO_ALLOWLIST)).toEqual({ allowed: false, reason });
  });

  it.each(['8.8.8.8', '93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(checkAddress(address, NO_ALLOWLIST)).toEqual({ allowed: true });
  });
});

describe('the allowlist', () => {
  it.each([
    ['127.0.0.1', { kind: 'cidr', range: '127.0.0.1/32' }],
    ['10.0.0.0/8', { kind: 'cidr', range: '10.0.0.0/8' }],
    ['::1', { kind: 'cidr', range: '::1/128' }],
    ['[::1]', { kind: 'cidr', range: '::1/128' }],
    ['fd00::/8', { kind: 'cidr', range: 'fd00::/8' }],
    ['Intranet.Example.COM', { kind: 'host', host: 'intranet.example.com' }],
    ['wiki.internal.', { kind: 'host', host: 'wiki.internal' }],
    ['10.0.0.0/33', { error: 'is not a valid CIDR range, got "10.0.0.0/33"' }],
    ['not a host', { error: 'must be a CIDR range, an IP address or a host name, got "not a host"' }],
    ['http://10.0.0.1/', { error: 'is not a valid CIDR range, got "http://10.0.0.1/"' }],
  ])('reads %s', (entry, parsed) => {
    expect(parseAllowlistEntry(entry)).toEqual(parsed);
  });

  it('a listed range allows its addresses, mapped forms included, and nothing else', () => {
    const list = allowlist('127.0.0.1', '10.1.0.0/16');
    expect(checkAddress('127.0.0.1', list)).toEqual({ allowed: true });
    expect(checkAddress('::ffff:127.0.0.1', list)).toEqual({ allowed: true });
    expect(checkAddress('10.1.200.3', list)).toEqual({ allowed: true });
    expect(checkAddress('10.2.0.1', list)).toEqual({ allowed: false, reason: 'a private address' });
    expect(checkAddress('127.0.0.2', list)).toEqual({ allowed: false, reason: 'a loopback address' });
    expect(checkAddress('::1', list)).toEqual({ allowed: false, reason: 'a loopback address' });
  });

  it('an operator may allow even the metadata address by naming it', () => {
    expect(checkAddress('169.254.169.254', allowlist('169.254.169.254'))).toEqual({ allowed: true });
  });

  it('host names are matched whole, case-insensitively', () => {
    const list = allowlist('wiki.internal');
    expect(isAllowlistedHost('WIKI.internal', list)).toBe(true);
    expect(isAllowlistedHost('evil.wiki.internal', list)).toBe(false);
    expect(isAllowlistedHost('wiki.internal.evil.com', list)).toBe(false);
  });
});
