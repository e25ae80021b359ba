/**
 * Key limits hold across the steps of a server-side tool loop, over HTTP: every upstream call of the loop
 * reserves its own worst case and settles to its real cost, so a credit limit spent by step 1 refuses step 2
 * (402), a requests-per-minute limit counts each step as a request (429), a tokens-per-minute limit reached
 * mid-stream ends the stream with an in-band `rate_limit_error`, and a loop that completes settles exactly
 * the sum of its steps' costs (no hold left behind).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { issueLimitedKey, limitedCost, limitsCatalog, listedKey, recordedCost } from './limits-support.ts';

const DATETIME = { type: 'gateway:datetime', timezone: 'Europe/Paris' };
const LOOP_REQUEST = { model: 'test/limited', max_tokens: 64, messages: [{ role: 'user', content: 'What time is it?' }], tools: [DATETIME] };

/** USD of a step's tokens at `test/limited`'s prices. */

/** A step asking for the clock, with its usage. */
const clockStep = (input: number, output: number) => anthropicStep({ text: 'Checking the clock.', calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input, output } });
/** The final answer, with its usage. */
const answerStep = (input: number, output: number) => anthropicStep({ text: 'It is noon.', usage: { input, output } });

describe('key limits across the steps of a tool loop', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startFakeAnthropic();
    gateway = await startTestGateway({ catalogYaml: limitsCatalog(upstream), env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });
  beforeEach(() => upstream.clear());

  const post = async (key: string, body: Record<string, unknown>) => {
    const response = await fetch(`${gateway.baseUrl}/messages`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (response.headers.get('content-type')?.includes('text/event-stream')) {
      const events: RawSseEvent[] = [];
      if (response.body) for await (const event of readSseEvents(response.body)) events.push(event);
      return { status: response.status, headers: response.headers, body: undefined, events };
    }
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any>, events: [] as RawSseEvent[] };
  };

  it('refuses the next step with 402 once a step has spent the credit limit, and counts the spent step', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 0.05 });
    // Step 1 costs 0.06 USD, past the limit: step 2 must not be sent.
    upstream.enqueue(clockStep(20, 20), answerStep(30, 5));
    const call = await post(issued.key, LOOP_REQUEST);
    expect(call.status, JSON.stringify(call.body)).toBe(402);
    expect(call.body?.error).toMatchObject({ type: 'billing_error' });
    expect(call.body?.error.message).toMatch(/credit limit/i);
    expect(upstream.requests).toHaveLength(1);
    const listed = await listedKey(gateway, issued.hash);
    expect(listed.usage.cost).toBeCloseTo(limitedCost(20, 20), 9);
  });

  it('counts every step as a request against requests per minute: the third step of a loop is refused with 429', async () => {
    const issued = await issueLimitedKey(gateway, { requests_per_minute: 2 });
    upstream.enqueue(clockStep(10, 5), clockStep(12, 5), answerStep(14, 5));
    const call = await post(issued.key, LOOP_REQUEST);
    expect(call.status, JSON.stringify(call.body)).toBe(429);
    expect(call.body?.error).toMatchObject({ type: 'rate_limit_error' });
    expect(Number(call.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(upstream.requests).toHaveLength(2);
    expect((await listedKey(gateway, issued.hash)).usage.requests_last_minute).toBe(2);
  });

  it('ends a streamed loop with an in-band rate_limit_error when a step reaches the tokens-per-minute limit', async () => {
    const issued = await issueLimitedKey(gateway, { tokens_per_minute: 300 });
    // Step 1 settles to 320 tokens: the tokens of the last minute are past the limit before step 2.
    upstream.enqueue(clockStep(300, 20), answerStep(330, 5));
    const call = await post(issued.key, { ...LOOP_REQUEST, stream: true });
    expect(call.status).toBe(200);
    const last = call.events.at(-1);
    expect(last?.event).toBe('error');
    expect(JSON.parse(last?.data ?? '{}')).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(call.events.some((event) => event.event === 'content_block_start')).toBe(true);
    expect(upstream.requests).toHaveLength(1);
    expect((await listedKey(gateway, issued.hash)).usage.tokens_last_minute).toBe(320);
  });

  it('settles a completed loop to the sum of its steps, as its generation record costs it, with nothing left reserved', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10, tokens_per_minute: 100_000, max_concurrent_streams: 1 });
    for (const stream of [false, true]) {
      upstream.enqueue(clockStep(40, 10), answerStep(60, 8));
      const call = await post(issued.key, { ...LOOP_REQUEST, stream });
      expect(call.status, JSON.stringify(call.body)).toBe(200);
      expect(upstream.requests).toHaveLength(stream ? 4 : 2);
    }
    const expected = 2 * (limitedCost(40, 10) + limitedCost(60, 8));
    expect(await recordedCost(gateway, issued.hash, 2, 'success')).toBeCloseTo(expected, 9);
    const listed = await listedKey(gateway, issued.hash);
    expect(listed.usage.cost).toBeCloseTo(expected, 9);
    expect(listed.usage.limit_remaining).toBeCloseTo(10 - expected, 9);
    expect(listed.usage.tokens_last_minute).toBe(2 * (40 + 10 + 60 + 8));
    expect(listed.usage.concurrent_streams).toBe(0);
  });
});
