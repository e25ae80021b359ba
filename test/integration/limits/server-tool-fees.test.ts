/**
 * What Anthropic bills beyond tokens, charged as Anthropic charges it, over HTTP: the searches its own
 * `web_search` tool ran (`usage.server_tool_use.web_search_requests`, $10 per 1,000 at the endpoint's
 * `pricing.web_search_request`) and, in a server-side tool loop, a step's `compaction` iteration, priced as
 * in a plain answer. The client's `usage.cost`, the generation record (`GET /generations/{id}`) and the key's
 * spending (`GET /keys`) must all say the same, JSON and stream alike. The search answers are real
 * recordings (`anthropic-web-search-tool.1`: two searches in the JSON answer, one in the stream, whose count
 * arrives in `message_delta`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic, type FakeUpstream, type ScriptedStep } from '#test/helpers/fake-upstreams/index.ts';
import { startFakeSearxng, searxngAnswer, searxngResult } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml } from '#test/integration/routing/routing-support.ts';
import { issueLimitedKey } from '#test/integration/limits/limits-support.ts';
import { expectCharged, postForCost } from './cost-support.ts';
import { priceOf } from '#test/helpers/token-price.ts';

/** `test/searching`: USD 1 per million input tokens, 2 per million output, 0.01 per web search. */
const PER_SEARCH = 0.01;
const tokens = (input: number, output: number) => priceOf(input, output, [1, 2]);

let upstream: FakeUpstream;
let searxng: ScriptedServer;
let gateway: TestGateway;

beforeAll(async () => {
  [upstream, searxng] = await Promise.all([startFakeAnthropic(), startFakeSearxng()]);
  const model = [
    '  test/searching:',
    '    name: test/searching',
    '    context_length: 200000',
    '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
    '    endpoints:',
    `      - { provider: alpha, model: up-searching, pricing: { input: 1, output: 2, web_search_request: ${PER_SEARCH} } }`,
  ].join('\n');
  const serverTools = `server_tools:\n  web_search: { backend: searxng, base_url: "${searxng.origin}" }\n`;
  gateway = await startTestGateway({ catalogYaml: `${catalogYaml([anthropicProviderYaml('alpha', upstream)], [model])}${serverTools}`, env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), searxng?.close()]);
});

const WEB_SEARCH_REQUEST = {
  model: 'test/searching',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'What is the weather in Paris today?' }],
  tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
};

describe("Anthropic's web search fee", () => {
  it('charges each search the JSON answer reports on top of its tokens', async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.fixture('anthropic-web-search-tool.1.json'));
    const answer = await postForCost(gateway, issued.key, WEB_SEARCH_REQUEST);
    expect(answer.usage).toMatchObject({ input_tokens: 27118, output_tokens: 600, server_tool_use: { web_search_requests: 2 } });
    // 27118 in x $1/M + 600 out x $2/M = $0.028318, plus 2 searches x $0.01.
    await expectCharged(gateway, issued, answer, tokens(27118, 600) + 2 * PER_SEARCH);
  });

  it("charges the search a stream's message_delta reports", async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(reply.fixture('anthropic-web-search-tool.1.chunks.txt'));
    const answer = await postForCost(gateway, issued.key, { ...WEB_SEARCH_REQUEST, stream: true });
    expect(answer.usage).toMatchObject({ input_tokens: 15665, output_tokens: 795, server_tool_use: { web_search_requests: 1 } });
    // 15665 in x $1/M + 795 out x $2/M = $0.017255, plus 1 search x $0.01.
    await expectCharged(gateway, issued, answer, tokens(15665, 795) + PER_SEARCH);
  });
});

describe.each([false, true])('a server-side tool loop step is charged as a plain answer (stream: %s)', (stream) => {
  // Step 1 runs an Anthropic web search besides asking for the gateway's datetime tool.
  const TOOL_STEP: ScriptedStep = {
    text: 'Checking.',
    calls: [{ name: 'datetime', input: { timezone: 'UTC' } }],
    usage: { input: 1000, output: 100 },
    moreUsage: { server_tool_use: { web_search_requests: 1, web_fetch_requests: 0 } },
  };
  // Step 2 compacted the conversation first: the compaction iteration is billed apart from the answer's counts.
  const ANSWER: ScriptedStep = {
    text: 'It is noon.',
    usage: { input: 1200, output: 10 },
    moreUsage: {
      iterations: [
        { type: 'compaction', input_tokens: 50_000, output_tokens: 500, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        { type: 'message', input_tokens: 1200, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      ],
    },
  };
  const FIRST = tokens(1000, 100) + PER_SEARCH;
  const SECOND = tokens(1200, 10) + tokens(50_000, 500);

  it("charges a step's web search and compaction in the answer, the record and the key", async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    upstream.enqueue(anthropicStep(TOOL_STEP), anthropicStep(ANSWER));
    const body = { model: 'test/searching', max_tokens: 256, messages: [{ role: 'user', content: 'What time is it in Paris?' }], tools: [{ type: 'gateway:datetime' }], stream };
    const answer = await postForCost(gateway, issued.key, body);
    expect(answer.steps).toHaveLength(2);
    expect(answer.steps?.[0]?.cost).toBeCloseTo(FIRST, 12);
    expect(answer.steps?.[1]?.cost).toBeCloseTo(SECOND, 12);
    await expectCharged(gateway, issued, answer, FIRST + SECOND);
  });
  it("charges no fee for the gateway's own searches, which Anthropic did not run", async () => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    searxng.enqueue(searxngAnswer('paris time', [searxngResult({ url: 'https://clock.example.org/', title: 'World clock', content: 'Noon in Paris.' })]));
    upstream.enqueue(anthropicStep({ text: 'Searching.', calls: [{ name: 'web_search', input: { query: 'paris time' } }], usage: { input: 1000, output: 100 } }), anthropicStep({ text: 'It is noon.', usage: { input: 1200, output: 10 } }));
    const body = { model: 'test/searching', max_tokens: 256, messages: [{ role: 'user', content: 'What time is it in Paris?' }], tools: [{ type: 'gateway:web_search' }], stream };
    const answer = await postForCost(gateway, issued.key, body);
    // The gateway's search is counted for the client, not billed as Anthropic's.
    expect(answer.usage.server_tool_use).toMatchObject({ web_search_requests: 1 });
    await expectCharged(gateway, issued, answer, tokens(1000, 100) + tokens(1200, 10));
  });
});
