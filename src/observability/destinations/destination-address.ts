/**
 * Where a broadcast destination may point (SSRF guard): public addresses only, unless the operator allows
 * private ones (`SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS`). Checked twice, with the address policy and guarded
 * connections of `gateway:web_fetch` (src/server-tools/web-fetch/): when a destination is created or changed
 * (an address literal, or a name that is loopback by definition), and on every connection, where a host name
 * is resolved and each of its addresses judged before a socket opens, so a name that later resolves to a
 * private address (DNS rebinding) never reaches it.
 */
import type { AgentOptions } from 'node:http';
import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { checkAddress, compileAllowlist, isAllowlistedHost, normalizeHost, type AllowlistEntry, type CompiledAllowlist } from '#src/server-tools/web-fetch/address-policy.ts';
import { BlockedAddressError, createGuardedDispatcher, createGuardedLookup, systemLookup, type LookupAll } from '#src/server-tools/web-fetch/guarded-dispatcher.ts';

/** How destinations reach the network: which non-public addresses are allowed, and the resolver. */
export interface DestinationNetwork {
  allowlist: CompiledAllowlist;
  resolve: LookupAll;
  /** The undici dispatcher of webhook and Langfuse deliveries (one per network). */
  dispatcher(): Dispatcher;
  /** Options of the node:http agent the OTLP exporter connects through. */
  agentOptions(): AgentOptions & { lookup: ReturnType<typeof createGuardedLookup> };
}

const ALLOWED_SCHEMES = new Set(['http:', 'https:']);
const CONNECT_TIMEOUT_MS = 10_000;

/** Builds the network of destinations from the operator's allowance. */
export function createDestinationNetwork(entries: readonly AllowlistEntry[], resolve: LookupAll = systemLookup): DestinationNetwork {
  const allowlist = compileAllowlist(entries);
  let dispatcher: Dispatcher | undefined;
  return {
    allowlist,
    resolve,
    dispatcher: () => (dispatcher ??= createGuardedDispatcher({ allowlist, resolve, connectTimeoutMs: CONNECT_TIMEOUT_MS })),
    agentOptions: () => ({ keepAlive: true, lookup: createGuardedLookup(allowlist, resolve) }),
  };
}

/**
 * Why a destination URL is refused before anything is stored, or null: not http(s), or an address that is
 * not allowed. A host name other than `localhost` is judged on every connection instead (resolving it here
 * would prove nothing about later). User-info is allowed: it is sealed and sent as Basic authentication.
 */
export function destinationUrlProblem(endpoint: string, allowlist: CompiledAllowlist): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint is not a valid URL';
  }
  if (!ALLOWED_SCHEMES.has(url.protocol)) return `endpoint must be an http or https URL, got ${url.protocol.replace(/:$/, '')}`;
  const host = normalizeHost(url.hostname);
  const hint = '; destinations on non-public addresses need SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS on the gateway';
  if (isIP(host) !== 0) {
    const verdict = checkAddress(host, allowlist);
    return verdict.allowed ? null : `endpoint ${host} is ${verdict.reason}${hint}`;
  }
  // RFC 6761: localhost and its subdomains are loopback whatever a resolver says.
  if ((host === 'localhost' || host.endsWith('.localhost')) && !isAllowlistedHost(host, allowlist) && !checkAddress('127.0.0.1', allowlist).allowed) {
    return `endpoint ${host} is a loopback host name${hint}`;
  }
  return null;
}

/**
 * Refuses an address literal the OTLP exporter would connect to directly (node:http skips `lookup` for a
 * literal); names go through the agent's guarded lookup.
 */
export function checkLiteralEndpoint(endpoint: string, allowlist: CompiledAllowlist): void {
  const host = normalizeHost(new URL(endpoint).hostname);
  if (isIP(host) === 0) return;
  const verdict = checkAddress(host, allowlist);
  if (!verdict.allowed) throw new BlockedAddressError(host, host, verdict.reason);
}
