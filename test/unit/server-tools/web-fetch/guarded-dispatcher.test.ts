import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { compileAllowlist, NO_ALLOWLIST } from '#src/server-tools/web-fetch/address-policy.ts';
import { BlockedAddressError, createGuardedLookup, findBlockedAddress, type LookupAll } from '#src/server-tools/web-fetch/guarded-dispatcher.ts';

const table: Record<string, LookupAddress[]> = {
  'public.test': [{ address: '93.184.215.14', family: 4 }, { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }],
  'mixed.test': [{ address: '93.184.215.14', family: 4 }, { address: '127.0.0.1', family: 4 }],
  'wiki.internal': [{ address: '10.0.0.5', family: 4 }],
};
const resolve: LookupAll = (hostname, callback) => {
  const addresses = table[hostname];
  if (addresses) callback(null, addresses);
  else callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
};

/** Calls the guarded lookup as net.connect does, and returns what it answered. */
function lookup(host: string, options: { all?: boolean; family?: number }, allowlist = NO_ALLOWLIST) {
  return new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((done) => {
    createGuardedLookup(allowlist, resolve)(host, options, (error, address, family) => done({ error, address, family }));
  });
}

describe('the guarded lookup', () => {
  it('answers a public name like dns.lookup, for all addresses or one, by family', async () => {
    expect(await lookup('public.test', { all: true })).toEqual({ error: null, address: table['public.test'], family: undefined });
    expect(await lookup('public.test', {})).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect(await lookup('public.test', { family: 6 })).toEqual({ error: null, address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 });
  });

  it('refuses a name when any of its addresses is not allowed, whichever comes first', async () => {
    const { error } = await lookup('mixed.test', { all: true });
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect(error?.message).toBe('mixed.test resolves to 127.0.0.1, a loopback address');
  });

  it('trusts every address of an allowlisted name, and only of that name', async () => {
    expect((await lookup('wiki.internal', {})).error?.message).toBe('wiki.internal resolves to 10.0.0.5, a private address');
    expect(await lookup('wiki.internal', {}, compileAllowlist([{ kind: 'host', host: 'wiki.internal' }]))).toEqual({ error: null, address: '10.0.0.5', family: 4 });
    expect((await lookup('wiki.internal', {}, compileAllowlist([{ kind: 'host', host: 'public.test' }]))).error?.message).toBe('wiki.internal resolves to 10.0.0.5, a private address');
  });

  it('passes resolver errors on', async () => {
    expect((await lookup('nowhere.test', {})).error?.code).toBe('ENOTFOUND');
  });

  it('finds a refusal wrapped in causes, as undici reports it', () => {
    const blocked = new BlockedAddressError('a', '127.0.0.1', 'a loopback address');
    expect(findBlockedAddress(new TypeError('fetch failed', { cause: new Error('connect', { cause: blocked }) }))).toBe(blocked);
    expect(findBlockedAddress(new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') }))).toBeUndefined();
  });
});
