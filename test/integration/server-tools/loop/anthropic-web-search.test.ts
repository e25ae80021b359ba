/**
 * Anthropic's web search tool (`web_search_20250305`) on translated vendors, over HTTP with the Anthropic SDK
 * as the client: with a search backend configured, the gateway runs it on SearXNG as its own web search (the
 * model is offered a `web_search` function), honouring `max_uses` and the domain lists, and answers with
 * Anthropic's blocks (`server_tool_use`, `web_search_tool_result`, `usage.server_tool_use.web_search_requests`),
 * JSON and stream. An Anthropic-format endpoint still gets the tool as sent.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep, geminiStep, openAiChatStep } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { expectSpecBlock } from '#test/helpers/spec-blocks.ts';
import { anthropicClient } from '#test/integration/routing/routing-support.ts';
import { bodyOf, loopBody, PRICES, runLoop, useLoopGateway } from './loop-support.ts';
import { priceOf } from '#test/helpers/token-price.ts';

const setup = useLoopGateway();
const FORECAST = 'https://meteo.example.org/paris';
const WEB_SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 1 };
const FORCED = { tool_choice: { type: 'tool', name: 'web_search' } };

function forecastResults() {
  return searxngAnswer('paris weather', [
    searxngResult({ url: FORECAST, title: 'Paris forecast', content: 'Sunny, 18 C this afternoon.' }),
    searxngResult({ url: 'https://spam.example.net/paris', title: 'Paris weather ads', content: 'Click here.' }),
  ]);
}

describe.each([false, true])('web_search_20250305 on OpenAI Chat Completions, run by the gateway (stream: %s)', (stream) => {
  it('searches SearXNG once (max_uses) and answers with server_tool_use, web_search_tool_result and the search count', async () => {
    setup.searxng.enqueue(forecastResults());
    setup.openai.enqueue(
      openAiChatStep({ calls: [{ name: 'web_search', input: { query: 'paris weather' } }], usage: { input: 50, output: 10 } }),
      openAiChatStep({ calls: [{ name: 'web_search', input: { query: 'paris weather tomorrow' } }], usage: { input: 300, output: 10 } }),
      openAiChatStep({ text: 'Sunny and 18 C.', usage: { input: 400, output: 8 } }),
    );
    const tool = { ...WEB_SEARCH, blocked_domains: ['spam.example.net'] };
    const { message, usage } = await runLoop(setup.gateway, loopBody('test/gpt', [tool], FORCED), stream);

    for (const block of message.content) expectSpecBlock(block);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'server_tool_use', 'web_search_tool_result', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'server_tool_use', name: 'web_search', input: { query: 'paris weather' } });
    // The blocked domain's result is left out; the second search is past max_uses and does not run.
    expect(message.content[1]).toMatchObject({ content: [{ type: 'web_search_result', url: FORECAST, title: 'Paris forecast' }] });
    expect((message.content[1] as { content: unknown[] }).content).toHaveLength(1);
    expect(message.content[3]).toMatchObject({ content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' } });
    expect(message.stop_reason).toBe('end_turn');
    expect(usage.server_tool_use).toEqual({ web_search_requests: 1 });
    expect(setup.searxng.requests).toHaveLength(1);
    // Priced as the gateway's own searches: the steps' tokens, no per-search fee.
    expect(usage.cost).toBeCloseTo(priceOf(750, 28, PRICES.gpt), 12);

    const first = bodyOf(setup.openai.requests[0]);
    expect(first.tools).toEqual([{ type: 'function', function: expect.objectContaining({ name: 'web_search' }) }]);
    expect(first.tool_choice).toEqual({ type: 'function', function: { name: 'web_search' } });
    // Later steps are not forced, or the model could never answer.
    expect(bodyOf(setup.openai.requests[1]).tool_choice).toBe('auto');
  });
});

describe('web_search_20250305 on Gemini, run by the gateway', () => {
  it('queries only the allowed domains and keeps only their results', async () => {
    setup.searxng.enqueue(forecastResults());
    setup.gemini.enqueue(
      geminiStep({ calls: [{ name: 'web_search', input: { query: 'paris weather' } }], usage: { input: 50, output: 10 } }),
      geminiStep({ text: 'Sunny.', usage: { input: 300, output: 4 } }),
    );
    const tool = { type: 'web_search_20250305', name: 'web_search', allowed_domains: ['meteo.example.org'] };
    const { message, usage } = await runLoop(setup.gateway, loopBody('test/gemini', [tool]), false);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect((message.content[1] as { content: { url: string }[] }).content.map((result) => result.url)).toEqual([FORECAST]);
    expect(Object.fromEntries(setup.searxng.requests[0]?.query ?? []).q).toBe('paris weather site:meteo.example.org');
    expect(usage.server_tool_use).toEqual({ web_search_requests: 1 });
  });

  it('answers a 400 naming the field when allowed_domains and blocked_domains are both set', async () => {
    const tool = { type: 'web_search_20250305', name: 'web_search', allowed_domains: ['a.example'], blocked_domains: ['b.example'] };
    await expect(runLoop(setup.gateway, loopBody('test/gemini', [tool]), false)).rejects.toMatchObject({ status: 400, message: expect.stringContaining('tools[0].blocked_domains: cannot be combined with allowed_domains') });
    expect(setup.gemini.requests).toHaveLength(0);
  });
});

describe('web_search_20250305 on an Anthropic-format endpoint', () => {
  it('reaches the upstream as sent; the gateway runs nothing', async () => {
    setup.alpha.enqueue(anthropicStep({ text: 'Sunny.', usage: { input: 50, output: 4 } }));
    const { message } = await runLoop(setup.gateway, loopBody('test/claude', [WEB_SEARCH], { provider: { order: ['alpha'] } }), false);
    expect(message.content.map((block) => block.type)).toEqual(['text']);
    expect(bodyOf(setup.alpha.requests[0]).tools).toEqual([WEB_SEARCH]);
    expect(setup.searxng.requests).toHaveLength(0);
  });
});

describe('count_tokens of a request offering web_search_20250305 on a translated model', () => {
  it('counts it as the gateway runs it: as the request offering gateway:web_search', async () => {
    const client = anthropicClient(setup.gateway);
    const messages = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];
    const anthropic = await client.messages.countTokens({ model: 'test/gpt', messages, tools: [WEB_SEARCH as never] });
    const gateway = await client.messages.countTokens({ model: 'test/gpt', messages, tools: [{ type: 'gateway:web_search' } as never] });
    expect(anthropic.input_tokens).toBe(gateway.input_tokens);
    expect(setup.openai.requests).toHaveLength(0);
  });
});
