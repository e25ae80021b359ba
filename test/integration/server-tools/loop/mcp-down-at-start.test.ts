/**
 * Over HTTP, JSON and stream through the Anthropic SDK: a request whose only tools are an MCP server's, the
 * server down when the request comes (the gateway never listed its tools). Its tools are not offered, and the
 * request is still answered: with no tool to offer, the steps go to the Anthropic-format upstream without
 * `tools` and without `tool_choice` (Anthropic refuses a `tool_choice` without tools), whether the client
 * gave one or the loop's final turn would disable tools.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startMcpTestServer } from '#test/helpers/fake-tool-servers/mcp-test-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { bodyOf, loopBody, runLoop } from './loop-support.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  // A server that was there and is gone: its port refuses connections.
  const gone = await startMcpTestServer();
  await gone.close();
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }])]);
  const tools = ['server_tools:', '  mcp_servers:', `    orders: { url: "${gone.url}", timeout_ms: 2000 }`].join('\n');
  gateway = await startTestGateway({ catalogYaml: `${catalog}${tools}\n` });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

beforeEach(() => upstream.clear());

const ORDERS = { type: 'gateway:mcp', server: 'orders' };

describe.each([false, true])('the only tools are those of an MCP server that is down (stream: %s)', (stream) => {
  it.each([
    ['the client\'s tool_choice auto', { tool_choice: { type: 'auto' } }],
    ['max_tool_calls 0 (the first turn is the final one)', { max_tool_calls: 0 }],
    ['no tool_choice', {}],
  ])('%s: answered, the upstream sent neither tools nor tool_choice', async (_case, extra) => {
    upstream.enqueue(anthropicStep({ text: 'The orders system is not reachable right now.', usage: { input: 20, output: 9 } }));
    const { message } = await runLoop(gateway, loopBody('test/claude', [ORDERS], { messages: [{ role: 'user', content: 'Where is order A-1001?' }], ...extra }), stream);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'The orders system is not reachable right now.' })]);
    expect(message.stop_reason).toBe('end_turn');
    const sent = bodyOf(upstream.requests[0]);
    expect(sent).not.toHaveProperty('tool_choice');
    expect(sent).not.toHaveProperty('tools');
  });
});
