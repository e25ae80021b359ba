/**
 * Over HTTP, JSON and stream through the Anthropic SDK: gateway tools and the client's own tools in one
 * request. When the model calls a client tool, the gateway calls of that step run first and the response ends
 * with the client's `tool_use` and `stop_reason: tool_use`. The client sends the message back unchanged with
 * its `tool_result`: the upstream then reads exactly the turns the model produced and the results of both
 * kinds of call together. Anthropic's own server tools pass through untouched and are never run.
 */
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { anthropicStep, reply } from '#test/helpers/fake-upstreams/index.ts';
import { bodyOf, loopBody, messagesOf, runLoop, toolNamesOf, useLoopGateway } from './loop-support.ts';

const setup = useLoopGateway();
const DATETIME = { type: 'gateway:datetime' };
const WEATHER = { name: 'weather', description: 'The weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
const ALPHA = { provider: { order: ['alpha'] } };
const QUESTION = { role: 'user' as const, content: 'What time and weather is it in Paris?' };

describe.each([false, true])('a client tool ends the loop (stream: %s)', (stream) => {
  it('the gateway call of the step runs, the response ends with the client tool_use; the passed-back turn reads as the model wrote it', async () => {
    setup.alpha.enqueue(
      anthropicStep({
        text: 'Let me look.',
        calls: [
          { name: 'datetime', input: { timezone: 'Europe/Paris' } },
          { name: 'weather', input: { city: 'Paris' }, id: 'toolu_01ClientWeather' },
        ],
        usage: { input: 100, output: 30 },
      }),
    );
    const body = loopBody('test/claude', [DATETIME, WEATHER], { ...ALPHA, messages: [QUESTION] });
    const first = await runLoop(setup.gateway, body, stream);
    const { message } = first;
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.map((block) => block.type as string)).toEqual(['text', 'server_tool_use', 'tool_use', 'datetime_tool_result']);
    const gatewayUse = message.content[1] as { id: string };
    expect(message.content[2]).toMatchObject({ type: 'tool_use', id: 'toolu_01ClientWeather', name: 'weather', input: { city: 'Paris' } });
    expect(message.content[3]).toMatchObject({ tool_use_id: gatewayUse.id, content: { type: 'datetime_result', timezone: 'Europe/Paris' } });
    expect(setup.alpha.requests).toHaveLength(1);
    expect(first.usage.server_tool_use).toEqual({ datetime_requests: 1 });
    expect(first.metadata.steps).toEqual([expect.objectContaining({ tools_called: ['datetime', 'weather'], stop_reason: 'tool_use' })]);

    // The client answers its tool and sends the conversation back, the gateway's blocks included.
    setup.alpha.enqueue(anthropicStep({ text: 'It is 14:00 and sunny in Paris.', usage: { input: 200, output: 12 } }));
    const followUp: MessageParam[] = [
      QUESTION,
      { role: 'assistant', content: message.content as MessageParam['content'] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01ClientWeather', content: 'Sunny, 18 C' }] },
    ];
    const second = await runLoop(setup.gateway, { ...body, messages: followUp }, stream);
    expect(second.message.content).toEqual([expect.objectContaining({ type: 'text', text: 'It is 14:00 and sunny in Paris.' })]);
    const turns = messagesOf(setup.alpha.requests[1]);
    expect(turns).toHaveLength(3);
    expect(turns[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: gatewayUse.id, name: 'datetime', input: { timezone: 'Europe/Paris' } },
        { type: 'tool_use', id: 'toolu_01ClientWeather', name: 'weather', input: { city: 'Paris' } },
      ],
    });
    const results = turns[2]?.content as Record<string, unknown>[];
    expect(results.map((result) => [result.type, result.tool_use_id])).toEqual([
      ['tool_result', gatewayUse.id],
      ['tool_result', 'toolu_01ClientWeather'],
    ]);
    expect(String(results[0]?.content)).toContain('Europe/Paris');
    expect(JSON.stringify(setup.alpha.requests[1]?.body)).not.toContain('datetime_tool_result');
  });
});

describe('tools that are not the gateway\'s', () => {
  it('a step calling only a client tool ends at once, nothing run', async () => {
    setup.alpha.enqueue(anthropicStep({ calls: [{ name: 'weather', input: { city: 'Oslo' } }], usage: { input: 10, output: 5 } }));
    const answer = await runLoop(setup.gateway, loopBody('test/claude', [DATETIME, WEATHER], ALPHA), false);
    expect(answer.message.stop_reason).toBe('tool_use');
    expect(answer.message.content.map((block) => block.type)).toEqual(['tool_use']);
    expect(answer.usage.server_tool_use).toBeUndefined();
  });

  it("Anthropic's own server tool goes to Anthropic untouched next to a gateway tool; its blocks pass through, never run", async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-web-search-tool.1'));
    const anthropicSearch = { type: 'web_search_20250305', name: 'web_search', max_uses: 1 };
    const answer = await runLoop(setup.gateway, loopBody('test/claude', [anthropicSearch, { ...DATETIME, name: 'clock' }], ALPHA), false);
    const sent = bodyOf(setup.alpha.lastRequest());
    expect(sent.tools).toEqual([anthropicSearch, expect.objectContaining({ name: 'clock', input_schema: expect.any(Object) })]);
    expect(toolNamesOf(setup.alpha.lastRequest())).toEqual(['web_search', 'clock']);
    expect(setup.alpha.requests).toHaveLength(1);
    expect(setup.searxng.requests).toHaveLength(0);
    const types = answer.message.content.map((block) => block.type as string);
    expect(types).toContain('server_tool_use');
    expect(types).toContain('web_search_tool_result');
    const use = answer.message.content.find((block) => block.type === 'server_tool_use') as { id: string };
    expect(use.id).toMatch(/^srvtoolu_01/);
    // Anthropic's own counters, as the recording reports them; the gateway ran nothing.
    expect(answer.usage.server_tool_use).toEqual({ web_search_requests: 2, web_fetch_requests: 0 });
  });
});
