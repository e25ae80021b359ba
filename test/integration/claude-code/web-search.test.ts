/**
 * The real Claude Code CLI's WebSearch through a gateway serving an OpenAI Chat Completions model: the CLI
 * sends its search as a request of its own offering Anthropic's `web_search_20250305` (`max_uses: 8`), which the gateway runs on its SearXNG backend in the tool loop (the upstream is offered a
 * `web_search` function), answering the stream of `server_tool_use` and `web_search_tool_result` blocks the
 * CLI reads; the results reach the model of the conversation as the WebSearch tool's result.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { openAiChatStep, startFakeOpenAiChat } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult, startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { describeRun, expectAnswer, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

const MODEL = 'openai/gpt-5-mini';
const FORECAST = 'https://meteo.example.org/paris';
const ANSWER = 'Paris is sunny, 18 C this afternoon.';

let searxng: ScriptedServer;
let target: ClaudeCodeTarget;

beforeAll(async () => {
  searxng = await startFakeSearxng();
  target = await startClaudeCodeTarget({
    startUpstream: () => startFakeOpenAiChat(),
    providerYaml: (upstream) => `  openai: { family: openai-chat, base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-websearch-0001" }`,
    extraCatalogLines: ['server_tools:', `  web_search: { backend: searxng, base_url: "${searxng.origin}" }`],
  });
});
afterAll(async () => {
  await target?.close();
  await searxng?.close();
});
beforeEach(() => {
  resetTarget(target);
  searxng.requests.length = 0;
});

type Body = { tools?: Array<{ type?: string; name?: string; max_uses?: number; function?: { name: string } }>; tool_choice?: unknown; messages: Array<{ role: string; content: unknown }> };

it('runs WebSearch on the gateway search backend and answers from its results', async () => {
  searxng.enqueue(searxngAnswer('paris weather', [searxngResult({ url: FORECAST, title: 'Paris forecast', content: 'Sunny, 18 C this afternoon.' })]));
  target.upstream.enqueue(
    // The conversation: the model calls WebSearch.
    openAiChatStep({ calls: [{ name: 'WebSearch', input: { query: 'paris weather' } }], usage: { input: 3000, output: 20 } }),
    // The CLI's search request, run by the gateway: the search, then the summary.
    openAiChatStep({ calls: [{ name: 'web_search', input: { query: 'paris weather' } }], usage: { input: 200, output: 10 } }),
    openAiChatStep({ text: 'Sunny, 18 C this afternoon (meteo.example.org).', usage: { input: 400, output: 12 } }),
    // The conversation again, with the WebSearch result.
    openAiChatStep({ text: ANSWER, usage: { input: 3400, output: 12 } }),
  );
  const outcome = await runAgainst(target, {
    prompt: 'What is the weather in Paris? Search the web.',
    model: MODEL,
    variable: 'ANTHROPIC_AUTH_TOKEN',
    allowedTools: ['WebSearch'],
    // The CLI may send its search with its small model: point that at the same model.
    extraEnv: { ANTHROPIC_DEFAULT_HAIKU_MODEL: MODEL, ANTHROPIC_SMALL_FAST_MODEL: MODEL },
    timeoutMs: 90_000,
  });
  expectAnswer(outcome, target, ANSWER);
  const context = describeRun(outcome, target);
  // The conversation's turn, the search, the conversation's next turn: each answered 200.
  expect(target.proxy.forwarded.map((call) => `${call.path} -> ${call.status}`), context).toEqual(Array.from({ length: 3 }, () => '/api/v1/messages?beta=true -> 200'));

  // The CLI's search request: Anthropic's tool alone.
  const search = target.proxy.forwarded.map((call) => call.body as Body).find((body) => body.tools?.some((tool) => tool.type === 'web_search_20250305'));
  expect(search, context).toBeDefined();
  expect(search?.tools, context).toEqual([expect.objectContaining({ type: 'web_search_20250305', name: 'web_search', max_uses: 8 })]);

  // The upstream was offered the gateway's web_search function and searched once on SearXNG.
  const requests = target.upstream.requests.map((request) => request.body as Body);
  expect(requests, context).toHaveLength(4);
  expect(requests[1]?.tools?.map((tool) => tool.function?.name)).toEqual(['web_search']);
  expect(searxng.requests).toHaveLength(1);
  expect(Object.fromEntries(searxng.requests[0]?.query ?? []).q).toBe('paris weather');

  // The conversation's model read the search's findings as WebSearch's result.
  const toolResult = requests[3]?.messages.find((message) => message.role === 'tool');
  expect(JSON.stringify(toolResult), context).toContain(FORECAST);
}, 120_000);
