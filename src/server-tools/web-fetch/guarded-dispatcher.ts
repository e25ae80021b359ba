/**
 * The HTTP client of `gateway:web_fetch`: an undici Agent whose connector judges the address it is about to
 * connect to. An IP literal is checked before connecting; a host name is resolved by a lookup that checks every
 * address the name resolves to and refuses the connection if any of them is not allowed, so a public-looking
 * name pointing at 127.0.0.1 (or at both a public and a private address) never opens a socket. Each redirect
 * hop is a new request, hence a new check.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { checkAddress, isAllowlistedHost, type CompiledAllowlist } from './address-policy.ts';

/** A DNS lookup in the shape of `dns.lookup` with `all: true`; tests inject one to map names to addresses. */
export type LookupAll = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** The system resolver (getaddrinfo, /etc/hosts included). */
export const systemLookup: LookupAll = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/** The connection was refused because the address is not allowed. */
export class BlockedAddressError extends Error {
  readonly code = 'SWITCHBOARD_BLOCKED_ADDRESS';
  readonly host: string;
  readonly address: string;
  readonly reason: string;

  constructor(host: string, address: string, reason: string) {
    super(host === address ? `${address} is ${reason}` : `${host} resolves to ${address}, ${reason}`);
    this.name = 'BlockedAddressError';
    this.host = host;
    this.address = address;
    this.reason = reason;
  }
}

type NetLookupOptions = { all?: boolean; family?: number | string };
type NetLookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for net/tls connect that resolves through `resolve` and refuses names with a disallowed address. */
export function createGuardedLookup(allowlist: CompiledAllowlist, resolve: LookupAll) {
  return (hostname: string, options: NetLookupOptions, callback: NetLookupCallback): void => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, []);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (!isAllowlistedHost(hostname, allowlist)) {
        for (const { address } of addresses) {
          const verdict = checkAddress(address, allowlist);
          if (!verdict.allowed) return callback(new BlockedAddressError(hostname, address, verdict.reason), []);
        }
      }
      const wanted = options.family === 6 || options.family === 'IPv6' ? 6 : options.family === 4 || options.family === 'IPv4' ? 4 : 0;
      const usable = wanted === 0 ? addresses : addresses.filter((entry) => entry.family === wanted);
      if (options.all) return callback(null, usable);
      const first = usable[0] ?? addresses[0];
      return callback(null, first?.address ?? '', first?.family);
    });
  };
}

/** Options of the guarded dispatcher. */
export interface GuardedDispatcherOptions {
  allowlist: CompiledAllowlist;
  resolve?: LookupAll;
  connectTimeoutMs: number;
}

/** An undici Agent that connects only to allowed addresses. */
export function createGuardedDispatcher(options: GuardedDispatcherOptions): Agent {
  const connector = buildConnector({ timeout: options.connectTimeoutMs, lookup: createGuardedLookup(options.allowlist, options.resolve ?? systemLookup) } as buildConnector.BuildOptions);
  return new Agent({
    connections: 16,
    keepAliveTimeout: 5_000,
    connect: (connectOptions, callback) => {
      // net.connect skips `lookup` for an IP literal, so a literal is judged here, before any socket exists.
      if (isIP(connectOptions.hostname) !== 0) {
        const verdict = checkAddress(connectOptions.hostname, options.allowlist);
        if (!verdict.allowed) {
          callback(new BlockedAddressError(connectOptions.hostname, connectOptions.hostname, verdict.reason), null);
          return;
        }
      }
      connector(connectOptions, callback);
    },
  });
}

/** The refusal behind a failed fetch, if that is why it failed (undici wraps connector errors in causes). */
export function findBlockedAddress(error: unknown): BlockedAddressError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof BlockedAddressError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
