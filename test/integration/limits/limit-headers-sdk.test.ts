/**
 * Rate-limit headers as the Anthropic SDK (1.14) sees them through the gateway. A 429 for a key's own
 * per-minute limit names it under Anthropic's own header names (`anthropic-ratelimit-requests-*`) with the
 * exact wait in `retry-after-ms`, which the SDK prefers to `retry-after` for its automatic retry; a stream
 * slot's 429 asks for one second and the SDK's retry lands once the slot is free. The upstream's own
 * `anthropic-ratelimit-*` headers describe the provider account the gateway called: a shared key's never
 * reach the caller, the caller's own key's (BYOK) do, JSON and stream alike, and on the 429 answered when
 * every attempt was rate limited upstream (the caller's own key's 429 headers, never the shared key's). A
 * success answer of a key with a per-minute limit names that window (limit, remaining after it, reset); with
 * a caller's own key's headers too, the family with less remaining wins.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { issueLimitedKey, LIMITED_REQUEST, limitsCatalog } from './limits-support.ts';
import { apiKeyOf, createCredential, deleteCredential, rejection } from '#test/integration/routing/routing-support.ts';

// What Anthropic would tell the gateway about its own organisation's capacity.
const UPSTREAM_LIMITS = {
  'anthropic-ratelimit-requests-limit': '4000',
  'anthropic-ratelimit-requests-remaining': '3999',
  'anthropic-ratelimit-requests-reset': '2026-11-27T20:00:00Z',
  'anthropic-ratelimit-tokens-limit': '2000000',
  'anthropic-ratelimit-tokens-remaining': '1999000',
  'anthropic-ratelimit-unified-status': 'allowed',
};

function client(gateway: TestGateway, key: string, maxRetries = 0): Anthropic {
  return new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: key, apiKey: null, maxRetries, timeout: 15_000 });
}

describe('rate-limit headers through the Anthropic SDK', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text', { headers: UPSTREAM_LIMITS }) });
    gateway = await startTestGateway({ catalogYaml: limitsCatalog(upstream) });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it("names the key's requests_per_minute and the exact wait on its 429, and never the upstream account's limits", async () => {
    const issued = await issueLimitedKey(gateway, { requests_per_minute: 1 });
    const sdk = client(gateway, issued.key);
    const first = await sdk.messages.create({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] }).withResponse();
    // The key's own window, never the upstream account's.
    expect(first.response.headers.get('anthropic-ratelimit-requests-limit')).toBe('1');
    expect(first.response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(first.response.headers.get('anthropic-ratelimit-requests-reset')).not.toBe(UPSTREAM_LIMITS['anthropic-ratelimit-requests-reset']);
    for (const name of ['anthropic-ratelimit-tokens-limit', 'anthropic-ratelimit-tokens-remaining', 'anthropic-ratelimit-unified-status']) expect(first.response.headers.get(name), name).toBeNull();

    const before = Date.now();
    const error = await rejection(sdk.messages.create({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] }));
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const headers = error.headers as Headers;
    expect(headers.get('anthropic-ratelimit-requests-limit')).toBe('1');
    expect(headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    const waitMs = Number(headers.get('retry-after-ms'));
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(60_000);
    // retry-after is the same wait in whole seconds; the reset is when it ends.
    expect(Number(headers.get('retry-after'))).toBe(Math.max(1, Math.ceil(waitMs / 1000)));
    const reset = Date.parse(headers.get('anthropic-ratelimit-requests-reset') as string);
    expect(reset).toBeGreaterThanOrEqual(before + waitMs - 1_000);
    expect(reset).toBeLessThanOrEqual(Date.now() + waitMs + 1_000);
    expect(headers.get('anthropic-ratelimit-tokens-limit')).toBeNull();
    expect(headers.get('anthropic-ratelimit-unified-status')).toBeNull();
  });

  it("retries a stream refused for the key's max_concurrent_streams after retry-after-ms, once the slot is free", async () => {
    const issued = await issueLimitedKey(gateway, { max_concurrent_streams: 1 });
    let release: () => void = () => undefined;
    upstream.enqueue(reply.fixture('anthropic-text', { until: new Promise<void>((resolve) => (release = resolve)), headers: UPSTREAM_LIMITS }));
    const sent = upstream.requests.length;
    const holding = client(gateway, issued.key).messages.stream({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] });
    const held = holding.finalMessage();
    const deadline = Date.now() + 10_000;
    while (upstream.requests.length === sent && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));

    // Refused once (the slot is taken), then retried by the SDK after the one second asked for.
    const refusedOnce = await rejection(client(gateway, issued.key).messages.create({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages], stream: true }));
    expect(refusedOnce.headers?.get('retry-after-ms')).toBe('1000');
    const started = Date.now();
    const retried = client(gateway, issued.key, 1).messages.stream({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] });
    setTimeout(release, 300);
    const [first, second] = await Promise.all([held, retried.finalMessage()]);
    expect(first.content[0]?.type).toBe('text');
    expect(second.content[0]?.type).toBe('text');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("passes the upstream's anthropic-ratelimit-* headers on when the caller's own key served the answer", async () => {
    const credential = await createCredential(gateway, { provider: 'alpha', key: 'sk-alpha-own-key-5c1e' });
    try {
      const sdk = client(gateway, gateway.api_key);
      const json = await sdk.messages.create({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] }).withResponse();
      expect(apiKeyOf(upstream.lastRequest())).toBe('sk-alpha-own-key-5c1e');
      for (const [name, value] of Object.entries(UPSTREAM_LIMITS)) expect(json.response.headers.get(name), name).toBe(value);

      const streamed = await sdk.messages.stream({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] }).withResponse();
      for (const [name, value] of Object.entries(UPSTREAM_LIMITS)) expect(streamed.response.headers.get(name), name).toBe(value);
      expect((await streamed.data.finalMessage()).content[0]?.type).toBe('text');
    } finally {
      await deleteCredential(gateway, credential);
    }
  });

  it("passes the caller's own key's anthropic-ratelimit-* headers on when every attempt was rate limited, never the shared key's", async () => {
    const own = {
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': '2026-11-27T20:00:07Z',
      'anthropic-ratelimit-tokens-limit': '40000',
    };
    const credential = await createCredential(gateway, { provider: 'alpha', key: 'sk-alpha-own-key-7d2f' });
    try {
      // The caller's own key first, then the gateway's shared key: both refused.
      upstream.enqueue(reply.error(429, { message: 'Number of requests has exceeded your rate limit', headers: { ...own, 'retry-after': '7' } }));
      upstream.enqueue(reply.error(429, { message: 'Number of requests has exceeded your rate limit', headers: { ...UPSTREAM_LIMITS, 'retry-after': '3' } }));
      const sent = upstream.requests.length;
      const error = await rejection(client(gateway, gateway.api_key).messages.create({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] }));
      expect(upstream.requests.slice(sent).map(apiKeyOf)).toEqual(['sk-alpha-own-key-7d2f', expect.not.stringContaining('own-key')]);
      expect(error).toBeInstanceOf(Anthropic.RateLimitError);
      const headers = error.headers as Headers;
      for (const [name, value] of Object.entries(own)) expect(headers.get(name), name).toBe(value);
      expect(headers.get('anthropic-ratelimit-tokens-remaining')).toBeNull();
      expect(headers.get('anthropic-ratelimit-unified-status')).toBeNull();
      // The soonest wait of the two, as before.
      expect(headers.get('retry-after')).toBe('3');
    } finally {
      await deleteCredential(gateway, credential);
    }
  });

  it("names the key's own per-minute windows on its success answers, JSON and stream", async () => {
    const issued = await issueLimitedKey(gateway, { requests_per_minute: 5, tokens_per_minute: 1_000 });
    const sdk = client(gateway, issued.key);
    const before = Date.now();
    const json = await sdk.messages.create({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] }).withResponse();
    const headers = json.response.headers;
    expect(headers.get('anthropic-ratelimit-requests-limit')).toBe('5');
    expect(headers.get('anthropic-ratelimit-requests-remaining')).toBe('4');
    // "Hello there" reserves its 3 estimated input tokens and max_tokens 64.
    expect(headers.get('anthropic-ratelimit-tokens-limit')).toBe('1000');
    expect(headers.get('anthropic-ratelimit-tokens-remaining')).toBe('933');
    // Fully replenished when the second this request was counted in leaves the 60-second window.
    const reset = Date.parse(headers.get('anthropic-ratelimit-requests-reset') as string);
    expect(reset).toBeGreaterThan(before + 59_000);
    expect(reset).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(headers.get('anthropic-ratelimit-tokens-reset')).toBe(headers.get('anthropic-ratelimit-requests-reset'));
    expect(headers.get('anthropic-ratelimit-unified-status')).toBeNull();

    const streamed = await sdk.messages.stream({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] }).withResponse();
    expect(streamed.response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('3');
    const tokensLeft = Number(streamed.response.headers.get('anthropic-ratelimit-tokens-remaining'));
    expect(tokensLeft).toBeLessThan(1_000 - 67);
    expect(tokensLeft).toBeGreaterThanOrEqual(1_000 - 2 * 67);
    expect((await streamed.data.finalMessage()).content[0]?.type).toBe('text');
  });

  it("sends, per family, the more restrictive of the key's window and the caller's own key's upstream headers", async () => {
    const issued = await issueLimitedKey(gateway, { requests_per_minute: 5 });
    const credential = await createCredential(gateway, { provider: 'alpha', key: 'sk-alpha-own-key-91b0' });
    try {
      const sdk = client(gateway, issued.key);
      // The upstream leaves 3999 requests, the key 4: the key's requests-*; no tokens limit of the key: the upstream's.
      const roomy = await sdk.messages.create({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] }).withResponse();
      expect(apiKeyOf(upstream.lastRequest())).toBe('sk-alpha-own-key-91b0');
      expect(roomy.response.headers.get('anthropic-ratelimit-requests-limit')).toBe('5');
      expect(roomy.response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('4');
      expect(roomy.response.headers.get('anthropic-ratelimit-requests-reset')).not.toBe(UPSTREAM_LIMITS['anthropic-ratelimit-requests-reset']);
      expect(roomy.response.headers.get('anthropic-ratelimit-tokens-remaining')).toBe('1999000');
      expect(roomy.response.headers.get('anthropic-ratelimit-unified-status')).toBe('allowed');

      // The upstream leaves 2 requests, the key 3: the upstream's three requests-* headers.
      const tight = { ...UPSTREAM_LIMITS, 'anthropic-ratelimit-requests-limit': '50', 'anthropic-ratelimit-requests-remaining': '2' };
      upstream.enqueue(reply.fixture('anthropic-text', { headers: tight }));
      const scarce = await sdk.messages.create({ ...LIMITED_REQUEST, messages: [...LIMITED_REQUEST.messages] }).withResponse();
      for (const name of ['anthropic-ratelimit-requests-limit', 'anthropic-ratelimit-requests-remaining', 'anthropic-ratelimit-requests-reset'] as const) {
        expect(scarce.response.headers.get(name), name).toBe(tight[name]);
      }
    } finally {
      await deleteCredential(gateway, credential);
    }
  });
});
