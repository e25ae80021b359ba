/**
 * The key's limits and the `web` plugin, over HTTP: a request is admitted before its search runs (nothing is
 * searched for a key its limits refuse), then the results make its prompt far larger than what was reserved.
 * The reservation is topped up with them, so while it is in flight another request of the key sees its real
 * worst case (a credit limit or tokens_per_minute the search result alone exceeds refuses it), and once it has
 * settled, nothing of the top-up is left held. Counted in process, and in Redis (REDIS_URL; in CI a missing
 * Redis fails).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult, startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { redisUrlForTests } from '#test/helpers/gateway-process.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { issueLimitedKey, limitsCatalog, listedKey, postLikeSdk, postWithKey, startAnsweringUpstream, type KeyCall } from './limits-support.ts';

let upstream: FakeUpstream;
let searxng: ScriptedServer;
const gateways = new Map<string, TestGateway>();
const redisUrl = redisUrlForTests();
const MODES = redisUrl ? ['in process', 'redis'] : ['in process'];

beforeAll(async () => {
  // Every answer waits: the request with the search is still in flight when the next one arrives.
  [upstream, searxng] = await Promise.all([startAnsweringUpstream({ delayMs: 1_500 }), startFakeSearxng()]);
  const catalogYaml = [limitsCatalog(upstream), 'server_tools:', `  web_search: { backend: searxng, base_url: "${searxng.origin}", default_max_results: 1, max_results: 5 }`, ''].join('\n');
  for (const mode of MODES) gateways.set(mode, await startTestGateway({ catalogYaml, env: mode === 'redis' ? { REDIS_URL: redisUrl as string } : {} }));
});
afterAll(async () => {
  await Promise.all([...gateways.values()].map((gateway) => gateway.close()));
  await Promise.all([upstream?.close(), searxng?.close()]);
});
beforeEach(() => {
  upstream.clear();
  searxng.requests.length = 0;
});

// About 5,000 tokens of snippet: at test/limited's 1,000 USD per million input tokens, some 5 USD.
const LONG_SNIPPET = 'The tide rises and falls twice a day along the coast. '.repeat(370);

/** Sends a request with the web plugin, and once its search has run and its model call is in flight, `next`. */
async function whileSearchedInFlight(gateway: TestGateway, key: string, next: () => Promise<KeyCall>): Promise<{ searched: KeyCall; next: KeyCall }> {
  searxng.enqueue(searxngAnswer('Hello there', [searxngResult({ url: 'https://tides.example.org/', title: 'Tides', content: LONG_SNIPPET })]));
  const searched = postWithKey(gateway, key, { plugins: [{ id: 'web' }] });
  const deadline = Date.now() + 10_000;
  while (upstream.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(JSON.stringify(upstream.lastRequest().body)).toContain('The tide rises');
  const answer = await next();
  return { searched: await searched, next: answer };
}

describe.each(MODES)('the web plugin\'s results are reserved against the key\'s limits (%s)', (mode) => {
  const gatewayOf = () => gateways.get(mode) as TestGateway;

  it('holds its results\' worst case against the credit limit while in flight', async () => {
    // Without the search, a request's worst case is 0.131 USD: many fit under 1 USD.
    const gateway = gatewayOf();
    const issued = await issueLimitedKey(gateway, { limit: 1, limit_reset: 'daily' });
    const { searched, next } = await whileSearchedInFlight(gateway, issued.key, () => postWithKey(gateway, issued.key));

    expect(searched.status, JSON.stringify(searched.body)).toBe(200);
    expect(next.status, JSON.stringify(next.body)).toBe(429);
    expect(next.body.error.message).toMatch(/^Credit limit nearly reached for this key: 0 of 1 USD spent today and [0-9.]+ reserved by requests in progress; retry in 1 s$/);
    expect(Number(/and ([0-9.]+) reserved/.exec(next.body.error.message)?.[1])).toBeGreaterThan(1);
    // Settled: the top-up is released with the request, and the key spends again (its settlement may still be
    // on its way to Redis: a 429 then says to retry in a second).
    expect((await postLikeSdk(gateway, issued.key)).status).toBe(200);
  });

  it('counts its results\' tokens against tokens_per_minute while in flight, and only the real tokens after', async () => {
    const gateway = gatewayOf();
    const issued = await issueLimitedKey(gateway, { tokens_per_minute: 2_000 });
    const { searched, next } = await whileSearchedInFlight(gateway, issued.key, () => postWithKey(gateway, issued.key));

    expect(searched.status, JSON.stringify(searched.body)).toBe(200);
    expect(next.status, JSON.stringify(next.body)).toBe(429);
    expect(next.body.error.message).toMatch(/^Rate limit reached for this key: \d+ of 2000 tokens per minute \(input plus output\) used; retry in \d+ s$/);
    // The recorded answer reports 12 input and about 30 output tokens: the top-up does not stay counted.
    await expect.poll(async () => (await listedKey(gateway, issued.hash)).usage.tokens_last_minute, { timeout: 3_000 }).toBeLessThan(100);
  });
});
