/**
 * Over HTTP, with a key with a spending limit: a passed-through Anthropic web search stream (a mixed plan, a
 * search backend configured) that ends in a refusal moves on to the loop's next model; a client that leaves
 * while that model's first step is still under way is charged the refused call as its upstream bills it (at
 * the refused endpoint's prices; nothing for a refusal before any output in `cyber`) and the serving call what
 * its message_start announced, on the generation record and the key's spending. `test/claude` on Alpha at
 * $3/$15 per million tokens, `test/claude-b` on Beta at $5/$25, `test/gpt` on OpenAI (never reached).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { issueLimitedKey } from '#test/integration/limits/limits-support.ts';
import { expectLeftStreamCharged, leaveAfterFallback } from '#test/integration/routing/refusal-leave-support.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { earlyRefusalStep, micro, refusalStep } from '#test/integration/routing/refusal-support.ts';

const WEB_SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 };

let alpha: FakeUpstream;
let beta: FakeUpstream;
let openai: FakeUpstream;
let searxng: ScriptedServer;
let gateway: TestGateway;

beforeAll(async () => {
  [alpha, beta, openai, searxng] = await Promise.all([startFakeAnthropic(), startFakeAnthropic(), startFakeOpenAiChat(), startFakeSearxng()]);
  const providers = [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta), `  openai: { base_url: "${openai.baseURL}", api_key: "sk-openai-leave-0001", family: openai-chat }`];
  const models = [
    modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }]),
    modelYaml('test/claude-b', [{ provider: 'beta', model: 'up-claude-b', price: [5, 25] }]),
    modelYaml('test/gpt', [{ provider: 'openai', model: 'gpt-leave', price: [1, 4] }]),
  ];
  const tools = `server_tools:\n  web_search: { backend: searxng, base_url: "${searxng.origin}" }\n`;
  gateway = await startTestGateway({ catalogYaml: `${catalogYaml(providers, models)}${tools}`, env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await Promise.all([alpha?.close(), beta?.close(), openai?.close(), searxng?.close()]);
});

beforeEach(() => {
  alpha.clear();
  beta.clear();
  openai.clear();
});

/** The passed-through web search, streamed, with the next models named. */
const REQUEST = { model: 'test/claude', max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'What is in the tech news today?' }], tools: [WEB_SEARCH], fallbacks: [{ model: 'test/claude-b' }, { model: 'test/gpt' }] };

// The next model's message_start: 60 in, 1 out at $5/$25.
const SERVING_STARTED = micro(60, 5) + micro(1, 25);

const CASES = [
  { name: 'after output began (billed)', refusal: () => refusalStep({ input: 40, output: 1 }), cost: micro(40, 3) + micro(1, 15) + SERVING_STARTED, tokens: { input_tokens: 100, output_tokens: 2 } },
  { name: 'before any output, cyber (unbilled)', refusal: () => earlyRefusalStep('cyber', { input: 40, output: 0 }), cost: SERVING_STARTED, tokens: { input_tokens: 100, output_tokens: 1 } },
];

describe('a passed-through stream refused, left while the next model answers its first step', () => {
  it.each(CASES)('$name: the refused call charged as billed, the serving call what it announced', async ({ refusal, cost, tokens }) => {
    const issued = await issueLimitedKey(gateway, { limit: 10 });
    alpha.enqueue(refusal());
    beta.enqueue(anthropicStep({ text: 'Chips are in the news, and a long answer follows.', usage: { input: 60, output: 6 } }, { stallAfterEvents: 4 }));
    const id = await leaveAfterFallback(gateway, issued.key, REQUEST, { 'anthropic-version': '2023-06-01' });

    await expectLeftStreamCharged(gateway, issued, id, { refused: 'test/claude', serving: 'test/claude-b', tokens, cost });
    expect(openai.requests).toHaveLength(0);
  });
});
