/**
 * Two gateway processes on one PostgreSQL and one Redis, as two replicas behind a load balancer: a key's
 * credit limit, requests per minute and concurrent streams hold exactly across both (each admission is one
 * atomic Redis script), and streams settle their real cost into the shared count. Counted per instance, each
 * of these would let the key through twice over. Needs DATABASE_URL and REDIS_URL; in CI a missing one fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { untilRedisUp } from '#test/helpers/prometheus-scrape.ts';
import { testDrivers } from '#test/helpers/test-database.ts';
import { bootstrapKey, issueInferenceKey, processStore, redisUrlForTests, startGatewayProcess, type GatewayProcess, type ProcessStore } from '#test/helpers/gateway-process.ts';
import { PATIENT_REDIS_ENV } from '#test/helpers/test-gateway-env.ts';
import { LIMITED_PRICES, limitsCatalog, listedKey, postLikeSdk, postWithKey, recordedCost, startAnsweringUpstream, streamWithKey, WORST_CASE_USD } from './limits-support.ts';

const drivers = testDrivers();
const redisUrl = redisUrlForTests();

describe.skipIf(!drivers.includes('postgres') || redisUrl === undefined)('key limits across two gateway instances (PostgreSQL, Redis)', () => {
  let upstream: FakeUpstream;
  let store: ProcessStore;
  let first: GatewayProcess;
  let second: GatewayProcess;
  const both = () => [first, second] as const;

  beforeAll(async () => {
    // Answers take 300 ms: requests sent together are in flight together, on both instances.
    upstream = await startAnsweringUpstream({ delayMs: 300 });
    store = await processStore('postgres');
    const managementKey = bootstrapKey();
    const env = { ...store.env, REDIS_URL: redisUrl as string, SWITCHBOARD_RECORD_FLUSH_MS: '50', ...PATIENT_REDIS_ENV };
    [first, second] = await Promise.all([
      startGatewayProcess({ env, catalogYaml: limitsCatalog(upstream), managementKey }),
      startGatewayProcess({ env, catalogYaml: limitsCatalog(upstream), managementKey }),
    ]);
    // An instance slow to connect starts without Redis (counting alone meanwhile): every count below is Redis's.
    for (const instance of both()) await untilRedisUp(instance.baseUrl, instance.management_key);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await store?.drop();
    await upstream?.close();
  });

  it('holds a credit limit across both: alternating requests stop within one request of it', async () => {
    // One request really costs (12 * 1000 + ~30 * 2000) / 1e6 USD; a limit of three of them, counted per
    // instance, would let each instance spend it.
    const limit = 0.2;
    const issued = await issueInferenceKey(first, { limit });
    let answered = 0;
    let refused: Awaited<ReturnType<typeof postWithKey>> | undefined;
    for (let turn = 0; turn < 12 && !refused; turn += 1) {
      // The previous answer's settlement may still be on its way to Redis: a 429 then says to retry in a second.
      const call = await postLikeSdk(both()[turn % 2] as GatewayProcess, issued.key);
      if (call.status === 200) answered += 1;
      else refused = call;
    }
    expect(refused?.status).toBe(402);
    expect(refused?.body.error.type).toBe('billing_error');
    const spent = await recordedCost(first, issued.hash, answered, 'success');
    expect(spent).toBeGreaterThanOrEqual(limit);
    expect(spent).toBeLessThan(limit + WORST_CASE_USD);
    // Both instances refuse now, and both show the same spending.
    for (const instance of both()) {
      expect((await postWithKey(instance, issued.key)).status).toBe(402);
      expect((await listedKey(instance, issued.hash)).usage.cost).toBeCloseTo(spent, 9);
    }
  });

  it('holds 40 concurrent requests on both instances to one worst case over a small credit limit', async () => {
    const limit = 0.3;
    const issued = await issueInferenceKey(first, { limit, limit_reset: 'monthly' });
    const calls = await Promise.all(Array.from({ length: 40 }, (_, index) => postWithKey(both()[index % 2] as GatewayProcess, issued.key)));
    const answered = calls.filter((call) => call.status === 200).length;
    expect(answered).toBeGreaterThan(0);
    // Refused while the rest of the limit was held (429), or once it was spent (402).
    const refused = calls.filter((call) => call.status !== 200);
    expect(refused.every((call) => (call.status === 429 && call.body.error.message.startsWith('Credit limit nearly reached')) || call.status === 402)).toBe(true);
    expect(await recordedCost(first, issued.hash, 40)).toBeLessThanOrEqual(limit + WORST_CASE_USD);
  });

  it('allows exactly requests_per_minute across both instances', async () => {
    const issued = await issueInferenceKey(first, { requests_per_minute: 6 });
    const calls = await Promise.all(Array.from({ length: 14 }, (_, index) => postWithKey(both()[index % 2] as GatewayProcess, issued.key)));
    expect(calls.filter((call) => call.status === 200)).toHaveLength(6);
    const refused = calls.filter((call) => call.status === 429);
    expect(refused).toHaveLength(8);
    for (const call of refused) {
      expect(call.body.error.message).toMatch(/^Rate limit reached for this key: 6 requests per minute; retry in \d+ s$/);
      expect(Number(call.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect((await listedKey(second, issued.hash)).usage.requests_last_minute).toBe(6);
  });

  it('allows exactly max_concurrent_streams open across both, and streams settle their real cost into the shared count', async () => {
    const issued = await issueInferenceKey(first, { max_concurrent_streams: 3, limit: 100 });
    // The streams admitted are held at the upstream until every request was admitted or refused: none ends, and
    // gives its slot back, before the last is decided (with answers merely slow, a loaded machine let a fourth in).
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    upstream.enqueue(...Array.from({ length: 3 }, () => reply.fixture('anthropic-text', { until: held })));
    const reachedBefore = upstream.requests.length;
    let refusedSoFar = 0;
    const pending = Array.from({ length: 8 }, (_, index) =>
      streamWithKey(both()[index % 2] as GatewayProcess, issued.key).then((stream) => {
        if (stream.status !== 200) refusedSoFar += 1;
        return stream;
      }),
    );
    await expect.poll(() => upstream.requests.length - reachedBefore + refusedSoFar, { timeout: 30_000 }).toBe(8);
    release();
    const streams = await Promise.all(pending);
    const opened = streams.filter((stream) => stream.status === 200);
    expect(opened).toHaveLength(3);
    for (const stream of opened) expect(stream.events.at(-1)?.event).toBe('message_stop');
    for (const stream of streams.filter((candidate) => candidate.status !== 200)) {
      expect(stream.status).toBe(429);
      expect(stream.error?.error.message).toBe('Rate limit reached for this key: 3 concurrent streams are open (max_concurrent_streams 3); retry in 1 s');
    }
    // Each stream's cost, from its message_delta, is what its record and the shared count hold.
    const streamed = opened.map((stream) => JSON.parse(stream.events.find((event) => event.event === 'message_delta')?.data ?? '{}').usage.cost as number);
    const total = streamed.reduce((sum, cost) => sum + cost, 0);
    expect(total).toBeGreaterThan(12 * LIMITED_PRICES.input / 1_000_000);
    expect(await recordedCost(first, issued.hash, 8)).toBeCloseTo(total, 9);
    for (const instance of both()) {
      const usage = (await listedKey(instance, issued.hash)).usage;
      expect(usage.cost).toBeCloseTo(total, 9);
      expect(usage.concurrent_streams).toBe(0);
    }
    // Every count above was Redis's: neither instance fell back to counting alone.
    for (const instance of both()) expect(instance.logs.join('\n')).not.toContain('counted in this process');
  });
});
