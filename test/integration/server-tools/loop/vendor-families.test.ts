/**
 * Over HTTP, the tool loop on translated vendors (OpenAI Chat Completions, Gemini, Bedrock Converse), JSON and
 * stream through the official Anthropic SDK: the gateway tool reaches each vendor as a function tool, its
 * result comes back in the vendor's own tool-result shape (search results as text), the client gets
 * Anthropic's blocks, and the final turn disables tools the way each vendor can: `tool_choice: none` on OpenAI,
 * function calling mode `NONE` on Gemini, no tools and the tool turns as text on Bedrock.
 */
import { describe, expect, it } from 'vitest';
import type { MessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { bedrockStep, geminiStep, openAiChatStep } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { anthropicClient } from '#test/integration/routing/routing-support.ts';
import { expectCost, expectWellFormed, finalStreamUsage, gatewayUsage, type GatewayUsage } from '#test/integration/providers-e2e/e2e-support.ts';
import { bodyOf, loopBody, PRICES, useLoopGateway } from './loop-support.ts';
import { priceOf } from '#test/helpers/token-price.ts';

const setup = useLoopGateway();
const SEARCH = { type: 'gateway:web_search' };
const DATETIME = { type: 'gateway:datetime' };

function searchAnswer(): void {
  setup.searxng.enqueue(searxngAnswer('paris weather', [searxngResult({ url: 'https://meteo.example.org/paris', title: 'Paris forecast', content: 'Sunny, 18 C this afternoon.' })]));
}

async function viaSdk(body: Record<string, unknown>, stream: boolean) {
  const client = anthropicClient(setup.gateway);
  if (!stream) return { message: await client.messages.create(body as never), events: [] as MessageStreamEvent[] };
  const events: MessageStreamEvent[] = [];
  const running = client.messages.stream(body as never);
  for await (const event of running) events.push(event);
  return { message: await running.finalMessage(), events };
}

/** The usage the client reads: the message's, or for a stream the final message_delta's (cost included). */
function usageOf(answer: Awaited<ReturnType<typeof viaSdk>>): GatewayUsage {
  return answer.events.length > 0 ? finalStreamUsage(answer.events) : gatewayUsage(answer.message);
}

function wellFormed(events: MessageStreamEvent[]): string[] {
  return expectWellFormed(events.filter((event) => (event.type as string) !== 'ping'));
}

describe.each([false, true])('OpenAI Chat Completions upstream (stream: %s)', (stream) => {
  it('searches through the gateway and answers; the result reaches the model as a tool message', async () => {
    searchAnswer();
    setup.openai.enqueue(
      openAiChatStep({ calls: [{ name: 'web_search', input: { query: 'paris weather' } }], usage: { input: 100, output: 10 } }),
      openAiChatStep({ text: 'Sunny and 18 C.', usage: { input: 300, output: 8, cacheRead: 100 } }),
    );
    const answer = await viaSdk(loopBody('test/gpt', [SEARCH]), stream);
    const { message, events } = answer;
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect(message.content[1]).toMatchObject({ content: [{ type: 'web_search_result', url: 'https://meteo.example.org/paris', title: 'Paris forecast' }] });
    expect(message.stop_reason).toBe('end_turn');
    if (stream) expect(wellFormed(events)).toEqual(['start 0 server_tool_use', 'delta 0 input_json_delta', 'stop 0', 'start 1 web_search_tool_result', 'stop 1', 'start 2 text', 'delta 2 text_delta', 'stop 2', 'message_delta']);

    const [first, second] = setup.openai.requests;
    expect((bodyOf(first).tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual(['web_search']);
    const messages = bodyOf(second).messages as { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string } }[]; tool_call_id?: string }[];
    expect(messages.map((entry) => entry.role)).toEqual(['user', 'assistant', 'tool']);
    const use = message.content[0] as { id: string };
    expect(messages[1]?.tool_calls).toEqual([expect.objectContaining({ id: use.id, function: expect.objectContaining({ name: 'web_search' }) })]);
    expect(messages[2]).toMatchObject({ tool_call_id: use.id });
    expect(String(messages[2]?.content)).toContain('Search results for "paris weather"');
    expect(String(messages[2]?.content)).toContain('Sunny, 18 C this afternoon.');

    // Chat Completions counts cached tokens inside prompt_tokens: 100 + (300 - 100) uncached, 100 cached.
    const usage = usageOf(answer);
    expect(usage).toMatchObject({ input_tokens: 300, output_tokens: 18, cache_read_input_tokens: 100 });
    expectCost(usage.cost, priceOf(300 + 100, 18, PRICES.gpt));
  });

  it('the final turn after the tool-call limit sends tool_choice none with the tools', async () => {
    setup.openai.enqueue(
      openAiChatStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 50, output: 5 } }),
      openAiChatStep({ text: 'It is noon.', usage: { input: 80, output: 5 } }),
    );
    const { message } = await viaSdk(loopBody('test/gpt', [DATETIME], { max_tool_calls: 1 }), stream);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'datetime_tool_result', 'text']);
    const last = bodyOf(setup.openai.requests[1]);
    expect(last.tool_choice).toBe('none');
    expect(last.tools).toHaveLength(1);
  });
});

describe.each([false, true])('Gemini upstream (stream: %s)', (stream) => {
  it('runs the tool and the result reaches the model as a functionResponse; the final turn sets mode NONE', async () => {
    setup.gemini.enqueue(
      geminiStep({ text: 'Checking.', calls: [{ name: 'datetime', input: { timezone: 'Asia/Tokyo' } }], usage: { input: 40, output: 6 } }),
      geminiStep({ text: 'It is evening in Tokyo.', usage: { input: 90, output: 7 } }),
    );
    const answer = await viaSdk(loopBody('test/gemini', [DATETIME], { stop_server_tools_when: [{ type: 'step_count_is', step_count: 1 }] }), stream);
    const { message, events } = answer;
    expect(message.content.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'datetime_tool_result', 'text']);
    expect(message.content[2]).toMatchObject({ content: { type: 'datetime_result', timezone: 'Asia/Tokyo' } });
    if (stream) expect(wellFormed(events).filter((line) => line.startsWith('start'))).toEqual(['start 0 text', 'start 1 server_tool_use', 'start 2 datetime_tool_result', 'start 3 text']);
    const second = bodyOf(setup.gemini.requests[1]);
    const contents = second.contents as { role: string; parts: Record<string, unknown>[] }[];
    expect(contents.map((entry) => entry.role)).toEqual(['user', 'model', 'user']);
    expect(contents[1]?.parts).toContainEqual(expect.objectContaining({ functionCall: expect.objectContaining({ name: 'datetime', args: { timezone: 'Asia/Tokyo' } }) }));
    expect(contents[2]?.parts[0]).toMatchObject({ functionResponse: { name: 'datetime' } });
    expect(JSON.stringify(contents[2]?.parts[0])).toContain('Asia/Tokyo');
    expect(second.toolConfig).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    const usage = usageOf(answer);
    expect(usage).toMatchObject({ input_tokens: 130, output_tokens: 13 });
    expectCost(usage.cost, priceOf(130, 13, PRICES.gemini));
  });
});

describe.each([false, true])('Bedrock Converse upstream (stream: %s)', (stream) => {
  it('the final turn offers no tools and gives the tool call and result as text', async () => {
    setup.bedrock.enqueue(
      bedrockStep({ calls: [{ name: 'datetime', input: { timezone: 'UTC' } }], usage: { input: 30, output: 4 } }),
      bedrockStep({ text: 'It is 12:00 UTC.', usage: { input: 70, output: 6 } }),
    );
    const { message } = await viaSdk(loopBody('test/bedrock', [DATETIME], { max_tool_calls: 1 }), stream);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'datetime_tool_result', 'text']);
    const first = bodyOf(setup.bedrock.requests[0]);
    expect(first.toolConfig).toMatchObject({ tools: [{ toolSpec: expect.objectContaining({ name: 'datetime' }) }] });
    const last = bodyOf(setup.bedrock.requests[1]);
    expect(last.toolConfig).toBeUndefined();
    const texts = JSON.stringify(last.messages);
    expect(texts).not.toContain('toolUse');
    expect(texts).not.toContain('toolResult');
    expect(texts).toContain(`[Tool call ${(message.content[0] as { id: string }).id}: datetime({\\"timezone\\":\\"UTC\\"})]`);
    expect(texts).toContain('[Tool result');
  });
});
