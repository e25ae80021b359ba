/**
 * Prompt-cache lifetimes (`cache_control.ttl`) as the gateway reads them. Anthropic documents `5m` and `1h`;
 * a lifetime it adds later in the same shape (`24h`) is accepted and forwarded to Anthropic-format upstreams
 * as sent, and a translated vendor with explicit caching is given the nearest lifetime it knows.
 * @see CacheLifetime in openapi/components/schemas/content-blocks.yaml
 */

/** The lifetimes Anthropic documents, which translated vendors with explicit caching take. */
export type KnownCacheLifetime = '5m' | '1h';

// Seconds per unit of the lifetime shape `^[1-9][0-9]{0,5}[smhd]$` (the spec's `CacheLifetime`).
const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };
const LIFETIME = /^([1-9][0-9]{0,5})([smhd])$/;

// The geometric mean of five minutes and an hour (about 17.3 minutes): nearer to one or the other by ratio,
// the natural distance between durations an order of magnitude apart.
const BETWEEN_KNOWN_SECONDS = Math.sqrt(300 * 3600);

/** A lifetime in seconds, or undefined when it is not of Anthropic's shape (a number and `s`, `m`, `h` or `d`). */
export function cacheLifetimeSeconds(ttl: string): number | undefined {
  const match = LIFETIME.exec(ttl);
  if (!match) return undefined;
  return Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number);
}

/**
 * The known lifetime a translated vendor is given for a marker's `ttl`: absent is Anthropic's default `5m`;
 * a known one is itself; another of Anthropic's shape the nearer of `5m` and `1h` by ratio (up to about 17
 * minutes `5m`, above `1h`); anything else undefined (the vendor cannot read the marker).
 */
export function nearestKnownCacheLifetime(ttl: string | undefined): KnownCacheLifetime | undefined {
  if (ttl === undefined || ttl === '5m') return '5m';
  if (ttl === '1h') return '1h';
  const seconds = cacheLifetimeSeconds(ttl);
  if (seconds === undefined) return undefined;
  return seconds <= BETWEEN_KNOWN_SECONDS ? '5m' : '1h';
}
