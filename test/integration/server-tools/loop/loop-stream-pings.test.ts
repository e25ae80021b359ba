/**
 * Over HTTP through the Anthropic SDK: while a streamed loop's gateway tools run, nothing else goes out, so
 * the gateway sends `ping` events (every `SWITCHBOARD_TOOL_LOOP_PING_MS`, 100 ms here) and clients and
 * proxies that give up on a silent stream keep it. The stream stays one well-formed message; a JSON answer
 * has no such events.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep, openAiChatStep } from '#test/helpers/fake-upstreams/index.ts';
import { expectWellFormed } from '#test/integration/providers-e2e/e2e-support.ts';
import { streamMessage } from '#test/integration/routing/routing-support.ts';
import { loopBody, runLoop, useLoopGateway } from './loop-support.ts';

const setup = useLoopGateway({ env: { SWITCHBOARD_TOOL_LOOP_PING_MS: '100' } });
const ORDERS = { type: 'gateway:mcp', server: 'orders', allowed_tools: ['wait'] };
// The tool answers after 800 ms: several ping intervals.
const WAIT = { name: 'mcp__orders__wait', input: { ms: 800 } };

describe.each([
  ['an Anthropic-format upstream', 'test/claude', () => setup.alpha, anthropicStep],
  ['OpenAI Chat Completions', 'test/gpt', () => setup.openai, openAiChatStep],
] as const)('a streamed loop on %s whose tool takes a while', (_name, model, upstream, step) => {
  it('sends pings between the call and its result, and stays one well-formed message', async () => {
    const body = loopBody(model, [ORDERS], { provider: { order: ['alpha'] } });
    // On the wire (the SDK skips pings as it reads).
    upstream().enqueue(step({ text: 'Waiting.', calls: [WAIT], usage: { input: 10, output: 5 } }), step({ text: 'Done waiting.', usage: { input: 20, output: 4 } }));
    const call = await streamMessage(setup.gateway, body);
    const names = call.events.map((event) => (event.event === 'content_block_start' ? `start ${(JSON.parse(event.data) as { content_block: { type: string } }).content_block.type}` : event.event));
    const between = names.slice(names.indexOf('start mcp_tool_use'), names.indexOf('start mcp_tool_result'));
    expect(between.filter((name) => name === 'ping').length).toBeGreaterThanOrEqual(1);
    expect(names.filter((name) => name !== 'ping')).toEqual([
      'message_start',
      'start text',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'start mcp_tool_use',
      'content_block_stop',
      'start mcp_tool_result',
      'content_block_stop',
      'start text',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);

    // Through the SDK: one message.
    upstream().enqueue(step({ text: 'Waiting.', calls: [WAIT], usage: { input: 10, output: 5 } }), step({ text: 'Done waiting.', usage: { input: 20, output: 4 } }));
    const { message, events } = await runLoop(setup.gateway, body, true);
    expect(expectWellFormed(events.filter((event) => (event.type as string) !== 'ping')).filter((line) => line.startsWith('start'))).toEqual([
      'start 0 text',
      'start 1 mcp_tool_use',
      'start 2 mcp_tool_result',
      'start 3 text',
    ]);
    expect(message.content.map((block) => block.type as string)).toEqual(['text', 'mcp_tool_use', 'mcp_tool_result', 'text']);
    expect(message.content[2]).toMatchObject({ is_error: false, content: [{ type: 'text', text: 'waited 800 ms' }] });
    expect(message.stop_reason).toBe('end_turn');
  });
});

describe('a JSON loop whose tool takes a while', () => {
  it('is one JSON message', async () => {
    setup.alpha.enqueue(anthropicStep({ calls: [WAIT], usage: { input: 10, output: 5 } }), anthropicStep({ text: 'Done waiting.', usage: { input: 20, output: 4 } }));
    const { message } = await runLoop(setup.gateway, loopBody('test/claude', [ORDERS], { provider: { order: ['alpha'] } }), false);
    expect(message.content.map((block) => block.type as string)).toEqual(['mcp_tool_use', 'mcp_tool_result', 'text']);
  });
});
