/**
 * Regression guard for the passthrough stream's hot path (issue 12), counted rather than timed: forwarding an
 * Anthropic stream parses a fixed number of its events (its message_start, each block's start, its
 * message_delta), never one per text delta, with `fallbacks` on the request or without. The refusal splicer
 * once parsed every delta to read its index, on every stream: `JSON.parse` calls grew with the answer's length.
 * The stream is read as bytes here, so every parse counted is the gateway's (or the fake upstream's, once per
 * request).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, messageBody, modelYaml } from '#test/integration/routing/routing-support.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;
const original = JSON.parse;
let parses = 0;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', upstream)],
      [modelYaml('test/primary', [{ provider: 'alpha', model: 'up-primary', price: [1, 2] }]), modelYaml('test/secondary', [{ provider: 'alpha', model: 'up-secondary', price: [1, 2] }])],
    ),
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
afterEach(() => {
  JSON.parse = original;
});

/** An Anthropic stream of one text block in `deltas` text deltas, as Anthropic sends it. */
function textStream(deltas: number): unknown[] {
  const usage = { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
  return [
    { type: 'message_start', message: { id: 'msg_01HotPathStream', type: 'message', role: 'assistant', model: 'up-primary', content: [], stop_reason: null, stop_sequence: null, usage } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ...Array.from({ length: deltas }, (_, index) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `word${index} ` } })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: deltas } },
    { type: 'message_stop' },
  ];
}

/** The `JSON.parse` calls made while one streamed request of `deltas` text deltas is forwarded and read to its end. */
async function parsesFor(deltas: number, extra: Record<string, unknown>): Promise<number> {
  upstream.enqueue(reply.events(textStream(deltas)));
  const body = JSON.stringify({ ...messageBody('test/primary', extra), stream: true });
  parses = 0;
  JSON.parse = function counted(this: unknown, ...args: Parameters<typeof JSON.parse>) {
    parses += 1;
    return original.apply(this, args);
  } as typeof JSON.parse;
  try {
    const response = await fetch(`${gateway.baseUrl}/messages`, { method: 'POST', headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' }, body });
    const text = await response.text();
    expect(response.status, text.slice(0, 300)).toBe(200);
    expect(text).toContain(`word${deltas - 1} `);
    return parses;
  } finally {
    JSON.parse = original;
  }
}

describe('a passthrough stream of many text deltas', () => {
  it.each([
    ['without fallbacks', {}],
    ['with fallbacks', { fallbacks: [{ model: 'test/secondary' }] }],
  ])('%s: the JSON.parse count does not grow with the number of deltas', async (_, extra) => {
    // One warm-up so that whatever is parsed once per process (a first request's setup) is out of the count.
    await parsesFor(4, extra);
    // The least of two runs, so that a parse a background task happens to make (a flush, a timer) is not counted.
    const few = Math.min(await parsesFor(10, extra), await parsesFor(10, extra));
    const many = Math.min(await parsesFor(400, extra), await parsesFor(400, extra));
    expect(many - few, `${few} parses for 10 deltas, ${many} for 400`).toBeLessThan(10);
  });
});
