/**
 * A tool loop meets its key's limits before its plugins, over HTTP: a loop from a key whose credit limit is
 * spent, that is over its requests per minute or at its stream cap gets the 402 or 429 a plain request gets
 * (same message, same `retry-after`), and neither the search backend (a fake SearXNG), the fetched web site
 * (a fake on 127.0.0.1), OpenAI's moderation endpoint (a fake) nor the model hears of it. A loop with room
 * is counted once: the check before its plugins takes nothing, its one step counts its one request. Counted
 * in process, and in Redis (REDIS_URL; in CI a missing Redis fails).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, moderationAnswer, moderationResult, reply, startFakeAnthropic, startFakeOpenAiModerations, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult, startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { serve, startFakeWebServer, type FakeWebServer } from '#test/helpers/fake-tool-servers/fake-web-server.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { redisUrlForTests } from '#test/helpers/gateway-process.ts';
import { PATIENT_REDIS_ENV } from '#test/helpers/test-gateway-env.ts';
import { untilRedisUp } from '#test/helpers/prometheus-scrape.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { issueLimitedKey, LIMITED_PRICES, LIMITED_REQUEST, listedKey } from './limits-support.ts';

const redisUrl = redisUrlForTests();
const MODES = redisUrl ? ['in process', 'redis'] : ['in process'];

let model: FakeUpstream;
let moderations: FakeUpstream;
let searxng: ScriptedServer;
let site: FakeWebServer;
const gateways = new Map<string, TestGateway>();

// Two gateways on PGlite, each migrating its own database: on a loaded machine that alone can near a minute.
beforeAll(async () => {
  [model, moderations, searxng, site] = await Promise.all([
    startFakeAnthropic(),
    startFakeOpenAiModerations(),
    startFakeSearxng(),
    startFakeWebServer({ '/opening-hours': serve('text/plain; charset=utf-8', 'The museum opens at 10:00.') }),
  ]);
  const catalog = [
    catalogYaml(
      [anthropicProviderYaml('alpha', model), `  moderator: { family: openai-chat, base_url: "${moderations.baseURL}", api_key: "sk-moderator-shared-0001" }`],
      [modelYaml('test/limited', [{ provider: 'alpha', model: 'up-limited', price: [LIMITED_PRICES.input, LIMITED_PRICES.output] }])],
    ),
    'plugins:',
    '  moderation: { engine: openai, provider: moderator, model: omni-moderation-latest }',
    'server_tools:',
    `  web_search: { backend: searxng, base_url: "${searxng.origin}", default_max_results: 2, max_results: 5 }`,
    '  web_fetch: { private_network_allowlist: [127.0.0.1] }',
    '',
  ].join('\n');
  for (const mode of MODES) {
    const env = { SWITCHBOARD_RECORD_FLUSH_MS: '50', ...(mode === 'redis' ? { REDIS_URL: redisUrl as string, ...PATIENT_REDIS_ENV } : {}) };
    const gateway = await startTestGateway({ catalogYaml: catalog, env });
    // Counted in process until it connects: a key's first request there and its next in Redis would both pass.
    if (mode === 'redis') await untilRedisUp(gateway.baseUrl, gateway.management_key);
    gateways.set(mode, gateway);
  }
}, 120_000);
afterAll(async () => {
  await Promise.all([...gateways.values()].map((gateway) => gateway.close()));
  await Promise.all([model?.close(), moderations?.close(), searxng?.close(), site?.close()]);
});
beforeEach(() => {
  model.clear();
  moderations.clear();
  searxng.requests.length = 0;
  site.paths.length = 0;
});

/** A loop (the gateway's clock) whose plugins screen the input, fetch the page it names and search the web. */
function loopBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...LIMITED_REQUEST,
    // A new question each time: a text the moderation endpoint passed is not screened again by this gateway.
    messages: [{ role: 'user', content: `When does the museum open (visit ${randomUUID()})? See ${site.origin}/opening-hours` }],
    tools: [{ type: 'gateway:datetime', timezone: 'Europe/Paris' }],
    plugins: [{ id: 'moderation' }, { id: 'web-fetch' }, { id: 'web' }],
    ...extra,
  };
}

/** What every plugin upstream and the model answer for one loop that passes: its one step answers at once. */
function scriptOneLoop(): void {
  moderations.enqueue(moderationAnswer([moderationResult()]));
  searxng.enqueue(searxngAnswer('museum', [searxngResult({ url: 'https://museum.example.org/', title: 'Museum', content: 'Open daily.' })]));
  model.enqueue(anthropicStep({ text: 'It opens at 10:00.', usage: { input: 20, output: 10 } }));
}

/** How many requests each fake has received. */
function heard() {
  return { moderation: moderations.requests.length, search: searxng.requests.length, fetch: site.paths.length, model: model.requests.length };
}
const NOTHING_HEARD = { moderation: 0, search: 0, fetch: 0, model: 0 };

interface Call {
  status: number;
  headers: Headers;
  body: Record<string, any>;
  /** A stream's event names, in order. */
  events: string[];
}

async function post(gateway: TestGateway, key: string, body: Record<string, unknown>): Promise<Call> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: randomUUID(), ...body }),
  });
  if (!response.headers.get('content-type')?.includes('text/event-stream')) {
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any>, events: [] };
  }
  const events: string[] = [];
  for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) events.push(event.event ?? '');
  return { status: response.status, headers: response.headers, body: {}, events };
}

describe.each(MODES)('a tool loop meets its key\'s limits before its plugins (%s)', (mode) => {
  let gateway: TestGateway;
  beforeAll(() => {
    gateway = gateways.get(mode) as TestGateway;
  });

  it('answers a loop from a key whose credit limit is spent with the 402 a plain request gets, and nothing is searched, fetched, screened or sent', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 0.2 });
    // Admitted at its worst case (0.131 USD), it costs 0.3 USD: the limit is spent.
    model.enqueue(anthropicStep({ text: 'Hello.', usage: { input: 100, output: 100 } }));
    expect((await post(gateway, issued.key, LIMITED_REQUEST)).status).toBe(200);
    // Its settlement may still be on its way to Redis.
    await expect.poll(async () => (await listedKey(gateway, issued.hash)).usage.cost, { timeout: 15_000 }).toBeCloseTo(0.3, 9);
    model.clear();

    const plain = await post(gateway, issued.key, LIMITED_REQUEST);
    expect(plain.status).toBe(402);
    for (const stream of [false, true]) {
      const loop = await post(gateway, issued.key, loopBody({ stream }));
      expect(loop.status, JSON.stringify(loop.body)).toBe(402);
      expect(loop.body.error).toEqual(plain.body.error);
      expect(loop.body.error.message).toBe('Credit limit reached for this key: 0.3 of 0.2 USD spent in total; raise the limit to spend more');
      expect(loop.body.request_id).toBe(loop.headers.get('request-id'));
      expect(loop.headers.get('retry-after')).toBeNull();
    }
    // A loop the rules refuse is told so first, as a plain request's 400s come before its limits.
    const invalid = await post(gateway, issued.key, loopBody({ tools: [{ type: 'gateway:teleport' }] }));
    expect(invalid.status, JSON.stringify(invalid.body)).toBe(400);
    expect(heard()).toEqual(NOTHING_HEARD);
  });

  it('answers a loop from a key over its requests per minute with the 429 and retry-after a plain request gets, and counts nothing more', async () => {
    const issued = await issueLimitedKey(gateway, { requests_per_minute: 1 });
    model.enqueue(anthropicStep({ text: 'Hello.', usage: { input: 10, output: 5 } }));
    expect((await post(gateway, issued.key, LIMITED_REQUEST)).status).toBe(200);
    model.clear();

    const plain = await post(gateway, issued.key, LIMITED_REQUEST);
    for (const stream of [false, true]) {
      const loop = await post(gateway, issued.key, loopBody({ stream }));
      expect(loop.status, JSON.stringify(loop.body)).toBe(429);
      const retryAfter = Number(loop.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      // Asked moments apart, the two may straddle a second.
      expect(Math.abs(retryAfter - Number(plain.headers.get('retry-after')))).toBeLessThanOrEqual(1);
      expect(loop.body.error).toEqual({ type: 'rate_limit_error', code: 429, message: `Rate limit reached for this key: 1 requests per minute; retry in ${retryAfter} s` });
    }
    expect(heard()).toEqual(NOTHING_HEARD);
    expect((await listedKey(gateway, issued.hash)).usage.requests_last_minute).toBe(1);
  });

  it('answers a streamed loop from a key at its stream cap with 429 before its plugins, and takes the cap\'s slot once when there is room', async () => {
    const issued = await issueLimitedKey(gateway, { max_concurrent_streams: 1 });
    // A plain stream held open: its first event waits until the test lets it go.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    model.enqueue(reply.fixture('anthropic-text', { until: held }));
    const open = post(gateway, issued.key, { ...LIMITED_REQUEST, stream: true });
    await expect.poll(() => model.requests.length, { timeout: 15_000 }).toBe(1);
    model.clear();

    const loop = await post(gateway, issued.key, loopBody({ stream: true }));
    expect(loop.status, JSON.stringify(loop.body)).toBe(429);
    expect(loop.headers.get('retry-after')).toBe('1');
    expect(loop.body.error.message).toBe('Rate limit reached for this key: 1 concurrent streams are open (max_concurrent_streams 1); retry in 1 s');
    expect(heard()).toEqual(NOTHING_HEARD);
    release();
    expect((await open).status).toBe(200);

    // The slot given back, a streamed loop runs: checked, then holding the one slot for its whole run.
    scriptOneLoop();
    const served = await post(gateway, issued.key, loopBody({ stream: true }));
    expect(served.status).toBe(200);
    expect(served.events.at(-1)).toBe('message_stop');
    expect(heard()).toEqual({ moderation: 1, search: 1, fetch: 1, model: 1 });
    expect((await listedKey(gateway, issued.hash)).usage.concurrent_streams).toBe(0);
  });

  it('counts a loop with room once: a key of 2 requests per minute makes exactly two loops, the third is refused before its plugins', async () => {
    const issued = await issueLimitedKey(gateway, { requests_per_minute: 2, limit: 10, tokens_per_minute: 100_000, max_concurrent_streams: 1 });
    for (const [index, stream] of [false, true].entries()) {
      scriptOneLoop();
      const call = await post(gateway, issued.key, loopBody({ stream }));
      expect(call.status, JSON.stringify(call.body)).toBe(200);
      expect((await listedKey(gateway, issued.hash)).usage.requests_last_minute).toBe(index + 1);
    }
    const counted = { moderation: 2, search: 2, fetch: 2, model: 2 };
    expect(heard()).toEqual(counted);

    const third = await post(gateway, issued.key, loopBody());
    expect(third.status, JSON.stringify(third.body)).toBe(429);
    expect(third.body.error.message).toMatch(/^Rate limit reached for this key: 2 requests per minute; retry in \d+ s$/);
    expect(heard()).toEqual(counted);
    const usage = (await listedKey(gateway, issued.hash)).usage;
    expect(usage).toMatchObject({ requests_last_minute: 2, concurrent_streams: 0 });
    // Each loop settled its step's real tokens (20 + 10), nothing of a check.
    expect(usage.tokens_last_minute).toBe(2 * 30);
    if (mode === 'redis') expect(gateway.logs.join('\n')).not.toMatch(/(counted|checked) in this process/);
  });
});
