/**
 * A JSON-RPC error from an MCP server, over HTTP with the Anthropic SDK as the client: the tool result the
 * client reads and the one the model is sent name the code once ("MCP error -32602: …"), whether the server
 * sent the text alone or, as the official TypeScript SDK's servers do, already prefixed (its `McpError`
 * message goes out whole, and the client SDK's `McpError` prefixes it again).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { RPC_ERROR_TEXT, startRawMcpServer, type RawMcpServer } from '#test/helpers/fake-tool-servers/raw-mcp-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { loopBody, messagesOf, runLoop } from './loop-support.ts';

let upstream: FakeUpstream;
let orders: RawMcpServer;
let gateway: TestGateway;

const NO_ARGUMENTS = { type: 'object' as const };

beforeAll(async () => {
  [upstream, orders] = await Promise.all([
    startFakeAnthropic(),
    startRawMcpServer(
      [
        { name: 'check_sdk', description: 'Refused as the TypeScript SDK words it.', inputSchema: NO_ARGUMENTS },
        { name: 'check_bare', description: 'Refused with the text alone.', inputSchema: NO_ARGUMENTS },
      ],
      { rpcErrors: { check_sdk: 'sdk', check_bare: 'bare' } },
    ),
  ]);
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }])]);
  const tools = ['server_tools:', '  mcp_servers:', `    orders: { url: "${orders.url}", timeout_ms: 5000 }`].join('\n');
  gateway = await startTestGateway({ catalogYaml: `${catalog}${tools}\n` });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), orders?.close()]);
});

const EXPECTED = `MCP error -32602: ${RPC_ERROR_TEXT}`;

describe.each([false, true])('a JSON-RPC error from an MCP server (stream: %s)', (stream) => {
  it.each(['check_sdk', 'check_bare'])('%s: the error result names the code once', async (tool) => {
    upstream.clear();
    upstream.enqueue(
      anthropicStep({ calls: [{ name: `mcp__orders__${tool}`, input: {} }], usage: { input: 20, output: 8 } }),
      anthropicStep({ text: 'The order id was refused.', usage: { input: 60, output: 9 } }),
    );
    const { message } = await runLoop(gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'orders' }]), stream);
    const use = message.content[0] as unknown as { id: string };
    expect(message.content[1]).toEqual({ type: 'mcp_tool_result', tool_use_id: use.id, is_error: true, content: [{ type: 'text', text: `the MCP server orders failed: ${EXPECTED}` }] });
    const sent = JSON.stringify(messagesOf(upstream.requests[1])[2]?.content);
    expect(sent).toContain(EXPECTED);
    expect(sent.split('MCP error').length - 1).toBe(1);
  });
});
