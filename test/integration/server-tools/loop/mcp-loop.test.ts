/**
 * End to end over HTTP with the Anthropic SDK as the client and a real MCP server built with the official SDK
 * on 127.0.0.1: a tool that succeeds, one that throws and a server stopped in the middle of a call. The model
 * is offered `mcp__<server>__<tool>`; the client reads `mcp_tool_use` (sent whole in a stream) and
 * `mcp_tool_result`; a failure is an `is_error` result the model reads, and the answer is still a 200.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startMcpTestServer, type McpTestServer } from '#test/helpers/fake-tool-servers/mcp-test-server.ts';
import { expectSpecBlock } from '#test/helpers/spec-blocks.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { loopBody, messagesOf, runLoop, toolNamesOf } from './loop-support.ts';

let upstream: FakeUpstream;
let orders: McpTestServer;
let doomed: McpTestServer;
let gateway: TestGateway;

beforeAll(async () => {
  [upstream, orders, doomed] = await Promise.all([startFakeAnthropic(), startMcpTestServer(), startMcpTestServer()]);
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }])]);
  const tools = ['server_tools:', '  mcp_servers:', `    orders: { url: "${orders.url}", timeout_ms: 5000 }`, `    doomed: { url: "${doomed.url}", timeout_ms: 15000 }`].join('\n');
  gateway = await startTestGateway({ catalogYaml: `${catalog}${tools}\n` });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), orders?.close(), doomed?.close()]);
});

beforeEach(() => upstream.clear());

const ORDERS = { type: 'gateway:mcp', server: 'orders' };

describe.each([false, true])('an MCP server as a tool source (stream: %s)', (stream) => {
  it('a tool that succeeds: the model reads its text, the client reads mcp_tool_use and mcp_tool_result', async () => {
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'mcp__orders__lookup_order', input: { order_id: 'A-1001' } }], usage: { input: 20, output: 8 } }),
      anthropicStep({ text: 'Your order shipped on 2 March.', usage: { input: 90, output: 9 } }),
    );
    const { message, usage, events } = await runLoop(gateway, loopBody('test/claude', [ORDERS], { messages: [{ role: 'user', content: 'Where is order A-1001?' }] }), stream);
    for (const block of message.content) expectSpecBlock(block);
    const use = message.content[0] as unknown as { id: string };
    expect(message.content[0]).toEqual({ type: 'mcp_tool_use', id: use.id, name: 'lookup_order', server_name: 'orders', input: { order_id: 'A-1001' } });
    expect(message.content[1]).toEqual({ type: 'mcp_tool_result', tool_use_id: use.id, is_error: false, content: [{ type: 'text', text: 'Order A-1001: shipped on 2026-03-02, 2 items.' }] });
    expect(usage.server_tool_use).toEqual({ mcp_requests: 1 });
    expect(toolNamesOf(upstream.requests[0])).toEqual(['mcp__orders__lookup_order', 'mcp__orders__explode', 'mcp__orders__slow', 'mcp__orders__report', 'mcp__orders__wait', 'mcp__orders__cut']);
    const result = (messagesOf(upstream.requests[1])[2]?.content as { content: unknown }[])[0];
    expect(JSON.stringify(result?.content)).toContain('shipped on 2026-03-02');
    if (stream) {
      // The MCP call goes out whole, its input complete, as soon as the model finished writing it.
      const start = events.find((event) => event.type === 'content_block_start') as unknown as { content_block: unknown };
      expect(start.content_block).toEqual(message.content[0]);
      expect(events.some((event) => event.type === 'content_block_delta' && event.delta.type === 'input_json_delta')).toBe(false);
    }
  });

  it('a tool that throws: an is_error result the model reads, never a 500', async () => {
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'mcp__orders__explode', input: {} }], usage: { input: 20, output: 8 } }),
      anthropicStep({ text: 'The orders system is down, sorry.', usage: { input: 60, output: 9 } }),
    );
    const { message } = await runLoop(gateway, loopBody('test/claude', [ORDERS]), stream);
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: true });
    expect(JSON.stringify(message.content[1])).toContain('the orders database is unreachable');
    const result = (messagesOf(upstream.requests[1])[2]?.content as { is_error?: boolean }[])[0];
    expect(result?.is_error).toBe(true);
    expect(message.content.at(-1)).toMatchObject({ type: 'text', text: 'The orders system is down, sorry.' });
  });
});

describe('an MCP server stopped in the middle of a call', () => {
  it('the call is an error result, and the loop answers', async () => {
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'mcp__doomed__slow', input: {} }], usage: { input: 20, output: 8 } }),
      anthropicStep({ text: 'That tool is not answering.', usage: { input: 60, output: 9 } }),
    );
    const pending = runLoop(gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'doomed', allowed_tools: ['slow'] }]), false);
    await doomed.slowStarted();
    await doomed.close();
    const { message } = await pending;
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: true });
    expect(JSON.stringify(message.content[1])).toContain('the MCP server doomed failed');
    expect(message.content.at(-1)).toMatchObject({ type: 'text', text: 'That tool is not answering.' });
  });
});
