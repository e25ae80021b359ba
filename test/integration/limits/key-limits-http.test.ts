/**
 * Key limits on one gateway, over HTTP, counted in process (no Redis): set with `POST /keys` and
 * `PATCH /keys/{hash}`, shown with their usage by `GET /keys`, and answered as a user sees them: 402
 * `billing_error` for a spent credit limit, 429 `rate_limit_error` with `retry-after` for the rate limits,
 * each naming the limit. Spending settles to the generation records' cost, and 50 concurrent requests
 * overshoot a small credit limit by at most one request's worst case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi } from '#test/helpers/management-api.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import {
  issueLimitedKey,
  limitsCatalog,
  listedKey,
  patchKey,
  postWithKey,
  recordedCost,
  startAnsweringUpstream,
  streamWithKey,
  WORST_CASE_USD,
} from './limits-support.ts';

describe.each(testDrivers())('key limits on one gateway (%s)', (driver) => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    // Every answer waits 150 ms: requests sent together are in flight together.
    upstream = await startAnsweringUpstream({ delayMs: 150 });
    gateway = await startTestGateway({ driver, catalogYaml: limitsCatalog(upstream), env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('sets limits on POST /keys, changes and clears them with PATCH /keys/{hash}, and lists them with their usage', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 12.5, limit_reset: 'monthly', requests_per_minute: 30, max_concurrent_streams: 2 });
    expect(issued).toMatchObject({ limit: 12.5, limit_reset: 'monthly', requests_per_minute: 30, tokens_per_minute: null, max_concurrent_streams: 2 });
    const listed = await listedKey(gateway, issued.hash);
    const monthStart = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
    expect(listed.usage).toEqual({
      cost: 0,
      limit_remaining: 12.5,
      period_start: monthStart.toISOString(),
      resets_at: new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1)).toISOString(),
      requests_last_minute: 0,
      tokens_last_minute: null,
      concurrent_streams: 0,
    });

    const changed = await patchKey(gateway, issued.hash, { limit: null, tokens_per_minute: 5000, name: 'renamed' });
    expect(changed).toMatchObject({ name: 'renamed', limit: null, limit_reset: 'monthly', requests_per_minute: 30, tokens_per_minute: 5000, max_concurrent_streams: 2 });
    expect(changed.usage).toMatchObject({ limit_remaining: null, tokens_last_minute: 0 });
  });

  it('answers the management mistakes with a 4xx in the error shape', async () => {
    const issued = await issueLimitedKey(gateway, {});
    const negative = await callApi(gateway.baseUrl, 'PATCH', `/keys/${issued.hash}`, { key: gateway.management_key, body: { limit: -1 } });
    expect(negative.status).toBe(400);
    expect(negative.body.error.details).toEqual([expect.objectContaining({ path: '/body/limit' })]);
    const empty = await callApi(gateway.baseUrl, 'PATCH', `/keys/${issued.hash}`, { key: gateway.management_key, body: {} });
    expect(empty.status).toBe(400);
    const unknown = await callApi(gateway.baseUrl, 'PATCH', `/keys/${'e'.repeat(64)}`, { key: gateway.management_key, body: { limit: 1 } });
    expect(unknown).toEqual({ status: 404, body: { error: { code: 404, message: 'Resource not found' } } });
    const management = await callApi(gateway.baseUrl, 'POST', '/keys', { key: gateway.management_key, body: { kind: 'management', limit: 5 } });
    expect(management).toEqual({
      status: 400,
      body: { error: { code: 400, message: 'Invalid request parameters: limits apply to inference keys only; this is a management key' } },
    });
    const byInference = await callApi(gateway.baseUrl, 'PATCH', `/keys/${issued.hash}`, { key: gateway.api_key, body: { limit: 1 } });
    expect(byInference.status).toBe(403);
  });

  it('answers 402 billing_error once the credit limit is spent, settled to the records’ cost; raising it lets the key spend again', async () => {
    const limit = 0.2;
    const issued = await issueLimitedKey(gateway, { limit });
    let answered = 0;
    for (;;) {
      const call = await postWithKey(gateway, issued.key);
      if (call.status !== 200) {
        expect(call.status).toBe(402);
        expect(call.body.error).toEqual({
          type: 'billing_error',
          code: 402,
          message: expect.stringMatching(/^Credit limit reached for this key: [0-9.]+ of 0\.2 USD spent in total; raise the limit to spend more$/),
        });
        expect(call.body.request_id).toBe(call.headers.get('request-id'));
        break;
      }
      answered += 1;
      expect(answered).toBeLessThan(10);
    }
    const spent = await recordedCost(gateway, issued.hash, answered, 'success');
    // Every request is admitted while the spending is under the limit: the last one may go over by its own cost.
    expect(spent).toBeGreaterThanOrEqual(limit);
    expect(spent).toBeLessThanOrEqual(limit + WORST_CASE_USD);
    const listed = await listedKey(gateway, issued.hash);
    expect(listed.usage.cost).toBeCloseTo(spent, 9);
    expect(listed.usage.limit_remaining).toBe(0);

    await patchKey(gateway, issued.hash, { limit: spent + 0.01 });
    expect((await postWithKey(gateway, issued.key)).status).toBe(200);
    expect((await postWithKey(gateway, issued.key)).status).toBe(402);
  });

  it('holds 50 concurrent requests to one request’s worst case over a small credit limit (429 while held, 402 once spent)', async () => {
    const limit = 0.3;
    const issued = await issueLimitedKey(gateway, { limit, limit_reset: 'daily' });
    const calls = await Promise.all(Array.from({ length: 50 }, () => postWithKey(gateway, issued.key)));
    const answered = calls.filter((call) => call.status === 200).length;
    expect(answered).toBeGreaterThan(0);
    // The others were refused while the admitted ones held the rest of the limit: 429, retry in a second
    // (or 402, for any refused after the first answers had already spent the limit).
    const refused = calls.filter((call) => call.status !== 200);
    expect(refused.every((call) => call.status === 429 || call.status === 402)).toBe(true);
    const held = refused.filter((call) => call.status === 429);
    expect(held.length).toBeGreaterThan(0);
    for (const call of held) {
      expect(call.body.error.type).toBe('rate_limit_error');
      expect(call.body.error.message).toMatch(/^Credit limit nearly reached for this key: [0-9.]+ of 0\.3 USD spent today and [0-9.]+ reserved by requests in progress; retry in 1 s$/);
      expect(call.headers.get('retry-after')).toBe('1');
    }
    // In flight together, each reserved its worst case: counting only what was spent, all 50 would have got in.
    expect(await recordedCost(gateway, issued.hash, 50)).toBeLessThanOrEqual(limit + WORST_CASE_USD);
    // Then more waves until the key is refused outright: the total never passes the limit by more than one worst case.
    let refusedOutright = false;
    for (let wave = 0; wave < 10 && !refusedOutright; wave += 1) {
      const more = await Promise.all(Array.from({ length: 50 }, () => postWithKey(gateway, issued.key)));
      refusedOutright = more.every((call) => call.status === 402);
    }
    expect(refusedOutright).toBe(true);
    const listed = await listedKey(gateway, issued.hash);
    const requests = (await callApi(gateway.baseUrl, 'GET', `/generations?key_hash=${issued.hash}&status=success&limit=1`, { key: gateway.management_key })).body;
    expect(listed.usage.cost).toBeGreaterThanOrEqual(limit);
    expect(listed.usage.cost).toBeLessThanOrEqual(limit + WORST_CASE_USD);
    expect(requests.totals.cost).toBeLessThanOrEqual(listed.usage.cost + 1e-9);
  });

  it('answers 429 rate_limit_error with retry-after past requests_per_minute', async () => {
    const issued = await issueLimitedKey(gateway, { requests_per_minute: 3 });
    const calls = await Promise.all(Array.from({ length: 5 }, () => postWithKey(gateway, issued.key)));
    expect(calls.map((call) => call.status).sort()).toEqual([200, 200, 200, 429, 429]);
    const refused = calls.find((call) => call.status === 429);
    const retryAfter = Number(refused?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused?.body.error).toEqual({ type: 'rate_limit_error', code: 429, message: `Rate limit reached for this key: 3 requests per minute; retry in ${retryAfter} s` });
    expect((await listedKey(gateway, issued.hash)).usage.requests_last_minute).toBe(3);
  });

  it('counts the estimate plus max_tokens against tokens_per_minute, then the real tokens', async () => {
    // One request reserves 3 + 64 tokens and settles to its real 12 + 30: the window holds its real usage after.
    const issued = await issueLimitedKey(gateway, { tokens_per_minute: 80 });
    expect((await postWithKey(gateway, issued.key)).status).toBe(200);
    const after = (await listedKey(gateway, issued.hash)).usage.tokens_last_minute;
    // The recorded answer used 12 input and about 30 output tokens, fewer than the 67 reserved.
    expect(after).toBeGreaterThan(40);
    expect(after).toBeLessThan(67);
    // Under 80: admitted, and then twice that is counted, which is over 80.
    expect((await postWithKey(gateway, issued.key)).status).toBe(200);
    const refused = await postWithKey(gateway, issued.key, { max_tokens: 10 });
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(new RegExp(`^Rate limit reached for this key: ${2 * after} of 80 tokens per minute \\(input plus output\\) used; retry in \\d+ s$`));
  });

  it('answers 429 past max_concurrent_streams while streams are open, and counts no JSON request', async () => {
    const issued = await issueLimitedKey(gateway, { max_concurrent_streams: 2 });
    const streams = await Promise.all(Array.from({ length: 4 }, () => streamWithKey(gateway, issued.key)));
    const opened = streams.filter((stream) => stream.status === 200);
    expect(opened).toHaveLength(2);
    for (const stream of opened) expect(stream.events.at(-1)?.event).toBe('message_stop');
    for (const refused of streams.filter((stream) => stream.status !== 200)) {
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.error?.error.message).toBe('Rate limit reached for this key: 2 concurrent streams are open (max_concurrent_streams 2); retry in 1 s');
    }
    // The streams ended and gave their slots back; JSON requests never take one.
    expect((await Promise.all(Array.from({ length: 3 }, () => postWithKey(gateway, issued.key)))).map((call) => call.status)).toEqual([200, 200, 200]);
    expect((await streamWithKey(gateway, issued.key)).status).toBe(200);
    expect((await listedKey(gateway, issued.hash)).usage.concurrent_streams).toBe(0);
  });
});
