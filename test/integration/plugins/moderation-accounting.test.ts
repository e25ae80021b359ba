/**
 * The `moderation` plugin's screening by a catalog model, as the key pays for it, over HTTP: the key's limits
 * are checked before the input is screened (a key out of credit gets its 402, a rate-limited key its 429, and
 * no upstream hears of either, plain request or tool loop); a screening call is charged to the key like any
 * model call: the answer's `usage.cost` is the screening plus the model, and the generation record
 * (`GET /generations/{id}`: `cost` and `moderation`) and the key's spending (`GET /keys`) say the same; a
 * flagged input, answered with a refusal and no model called, and a request whose model fails after the
 * screening are still charged the screening. Counted in process, and in Redis when REDIS_URL is set.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { issueLimitedKey, LIMITED_PRICES, limitedCost, listedKey } from '#test/integration/limits/limits-support.ts';
import { priceOf } from '#test/helpers/token-price.ts';
import { redisUrlForTests } from '#test/helpers/gateway-process.ts';
import { PATIENT_REDIS_ENV } from '#test/helpers/test-gateway-env.ts';
import { untilRedisUp } from '#test/helpers/prometheus-scrape.ts';

/** USD per million tokens of the moderation model `test/guard`: input, output. */
const GUARD_PRICES = { input: 500, output: 1_000 } as const;
const guardCost = (input: number, output: number) => priceOf(input, output, [GUARD_PRICES.input, GUARD_PRICES.output]);

/** The screening's answer: a verdict, with its tokens. */
const verdict = (flagged: boolean, usage = { input: 90, output: 12 }) =>
  anthropicStep({ text: JSON.stringify(flagged ? { flagged, category: 'violence', explanation: 'A threat.' } : { flagged, category: null, explanation: 'Fine.' }), usage });
/** The model's answer, with its tokens. */
const answer = (usage = { input: 20, output: 10 }) => anthropicStep({ text: 'Knead, rise, bake.', usage });

const SCREENING = guardCost(90, 12);
const MODEL = limitedCost(20, 10);

const redisUrl = redisUrlForTests();
const MODES = redisUrl ? ['in process', 'redis'] : ['in process'];

let model: FakeUpstream;
let guard: FakeUpstream;
const gateways = new Map<string, TestGateway>();

// Two gateways on PGlite, each migrating its own database: on a loaded machine that alone can near a minute.
beforeAll(async () => {
  [model, guard] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  const catalog = [
    catalogYaml(
      [anthropicProviderYaml('alpha', model), anthropicProviderYaml('beta', guard)],
      [
        modelYaml('test/limited', [{ provider: 'alpha', model: 'up-limited', price: [LIMITED_PRICES.input, LIMITED_PRICES.output] }]),
        modelYaml('test/guard', [{ provider: 'beta', model: 'claude-guard', price: [GUARD_PRICES.input, GUARD_PRICES.output] }]),
      ],
    ),
    'plugins:',
    '  moderation: { engine: model, model: test/guard }',
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
  await Promise.all([model?.close(), guard?.close()]);
});
beforeEach(() => {
  model.clear();
  guard.clear();
});

// A new text each time: a text the moderation model passed is not screened again for the account.
const moderated = () => ({ model: 'test/limited', max_tokens: 64, messages: [{ role: 'user', content: `Hello there (${randomUUID()})` }], plugins: [{ id: 'moderation' }] });

interface Call {
  status: number;
  id: string;
  body: Record<string, any>;
  /** A stream's `message_delta` payload. */
  delta?: Record<string, any>;
}

async function post(gateway: TestGateway, key: string, body: Record<string, unknown>): Promise<Call> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-gateway-metadata': 'enabled' },
    body: JSON.stringify({ session_id: randomUUID(), ...body }),
  });
  const id = response.headers.get('request-id') ?? '';
  if (!response.headers.get('content-type')?.includes('text/event-stream')) return { status: response.status, id, body: (await response.json()) as Record<string, any> };
  let delta: Record<string, any> | undefined;
  for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) if (event.event === 'message_delta') delta = JSON.parse(event.data) as Record<string, any>;
  return { status: response.status, id, body: {}, ...(delta ? { delta } : {}) };
}

/** The key's spending as `GET /keys` shows it, once the requests' records (and settlements) are in. */
async function spentBy(gateway: TestGateway, hash: string): Promise<number> {
  await gateway.server.flushRecords();
  return (await listedKey(gateway, hash)).usage.cost as number;
}

describe.each(MODES)('key limits and moderation (%s)', (mode) => {
  let gateway: TestGateway;
  beforeAll(() => {
    gateway = gateways.get(mode) as TestGateway;
  });

  describe('the key limits come before the moderation screening', () => {
    it('answers a key whose credit limit is spent with 402, calling neither the moderation model nor the model', async () => {
      const issued = await issueLimitedKey(gateway, { limit: 0.2 });
      // Admitted at its worst case (0.131 USD), it costs 0.3 USD: the limit is spent.
      model.enqueue(answer({ input: 100, output: 100 }));
      const spending = await post(gateway, issued.key, { ...moderated(), plugins: [] });
      expect(spending.status, JSON.stringify(spending.body)).toBe(200);
      expect(await spentBy(gateway, issued.hash)).toBeGreaterThan(0.2);
      model.clear();

      const refused = await post(gateway, issued.key, moderated());
      expect(refused.status, JSON.stringify(refused.body)).toBe(402);
      expect(refused.body.error).toMatchObject({ type: 'billing_error' });
      expect(guard.requests).toHaveLength(0);
      expect(model.requests).toHaveLength(0);
    });

    it('answers a rate-limited key with 429 before screening, for a plain request and a tool loop alike', async () => {
      const issued = await issueLimitedKey(gateway, { requests_per_minute: 1 });
      model.enqueue(answer());
      expect((await post(gateway, issued.key, { ...moderated(), plugins: [] })).status).toBe(200);
      model.clear();

      for (const extra of [{}, { tools: [{ type: 'gateway:datetime' }] }]) {
        const refused = await post(gateway, issued.key, { ...moderated(), ...extra });
        expect(refused.status, JSON.stringify(refused.body)).toBe(429);
        expect(refused.body.error).toMatchObject({ type: 'rate_limit_error' });
      }
      expect(guard.requests).toHaveLength(0);
      expect(model.requests).toHaveLength(0);
    });
  });

  describe('the moderation model\'s screening call is charged to the key', () => {
    it('adds the screening to usage.cost, the generation record and the key\'s spending, JSON and stream alike', async () => {
      // Below the request's worst case with its screening's: admitted all the same (nothing is spent yet), and
      // the request's own reservation does not refuse its screening (one check for both).
      const issued = await issueLimitedKey(gateway, { limit: 0.12 });
      guard.enqueue(verdict(false), verdict(false));
      model.enqueue(answer(), answer());

      const json = await post(gateway, issued.key, moderated());
      expect(json.status, JSON.stringify(json.body)).toBe(200);
      expect(json.body.usage).toMatchObject({ input_tokens: 20, output_tokens: 10 });
      expect(json.body.usage.cost).toBeCloseTo(SCREENING + MODEL, 12);
      expect(json.body.gateway_metadata.plugins).toEqual([
        { id: 'moderation', status: 'passed', screening: { model: 'test/guard', provider: 'Beta Cloud', is_byok: false, usage: { input_tokens: 90, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, cost: SCREENING } },
      ]);

      const stream = await post(gateway, issued.key, { ...moderated(), stream: true });
      expect(stream.status).toBe(200);
      expect(stream.delta?.usage.cost).toBeCloseTo(SCREENING + MODEL, 12);
      expect(guard.requests).toHaveLength(2);
      expect(model.requests).toHaveLength(2);

      for (const call of [json, stream]) {
        const record = await generationOf(gateway, call.id);
        expect(record.cost).toBeCloseTo(SCREENING + MODEL, 12);
        expect(record.usage).toMatchObject({ input_tokens: 20, output_tokens: 10 });
        expect(record.moderation).toMatchObject({ model: 'test/guard', provider: 'Beta Cloud', usage: { input_tokens: 90, output_tokens: 12 } });
        expect(record.moderation.cost).toBeCloseTo(SCREENING, 12);
      }
      expect(await spentBy(gateway, issued.hash)).toBeCloseTo(2 * (SCREENING + MODEL), 12);
    });

    it('charges a flagged input the screening: the refusal\'s usage.cost, its record and the key say so', async () => {
      const issued = await issueLimitedKey(gateway, { limit: 10, tokens_per_minute: 60 });
      guard.enqueue(verdict(true));
      const call = await post(gateway, issued.key, { ...moderated(), messages: [{ role: 'user', content: 'I will hurt you.' }] });

      expect(call.status, JSON.stringify(call.body)).toBe(200);
      expect(call.body).toMatchObject({ stop_reason: 'refusal', content: [], usage: { input_tokens: 0, output_tokens: 0 } });
      expect(call.body.usage.cost).toBeCloseTo(SCREENING, 12);
      expect(model.requests).toHaveLength(0);
      const record = await generationOf(gateway, call.id);
      expect(record).toMatchObject({ status: 'refusal', moderation: { model: 'test/guard' } });
      expect(record.cost).toBeCloseTo(SCREENING, 12);
      expect(await spentBy(gateway, issued.hash)).toBeCloseTo(SCREENING, 12);
    });

    it('charges the screening to a request whose model then fails, and to a tool loop\'s answer', async () => {
      const issued = await issueLimitedKey(gateway, { limit: 10 });
      guard.enqueue(verdict(false));
      model.enqueue(reply.error(400));
      const failed = await post(gateway, issued.key, moderated());
      expect(failed.status).toBe(400);
      const record = await generationOf(gateway, failed.id);
      expect(record).toMatchObject({ status: 'error', moderation: { model: 'test/guard' } });
      expect(record.cost).toBeCloseTo(SCREENING, 12);

      guard.enqueue(verdict(false));
      model.enqueue(answer());
      const loop = await post(gateway, issued.key, { ...moderated(), tools: [{ type: 'gateway:datetime' }] });
      expect(loop.status, JSON.stringify(loop.body)).toBe(200);
      expect(loop.body.usage.cost).toBeCloseTo(SCREENING + MODEL, 12);
      expect((await generationOf(gateway, loop.id)).cost).toBeCloseTo(SCREENING + MODEL, 12);
      expect(await spentBy(gateway, issued.hash)).toBeCloseTo(2 * SCREENING + MODEL, 12);
    });
  });
});
