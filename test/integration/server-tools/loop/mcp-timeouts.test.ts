/**
 * One MCP tool call that times out, over HTTP with the Anthropic SDK as the client: it is that call's error
 * result only. The gateway shares one connection per MCP server between requests, and a timed-out request
 * says nothing about the connection (each call is its own HTTP request), so another request's call still
 * under way on the same server finishes and is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startMcpTestServer, type McpTestServer } from '#test/helpers/fake-tool-servers/mcp-test-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { loopBody, runLoop } from './loop-support.ts';

let upstream: FakeUpstream;
let orders: McpTestServer;
let gateway: TestGateway;

beforeAll(async () => {
  [upstream, orders] = await Promise.all([startFakeAnthropic(), startMcpTestServer({ sessions: true })]);
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }])]);
  const tools = ['server_tools:', '  mcp_servers:', `    orders: { url: "${orders.url}", timeout_ms: 6000 }`].join('\n');
  gateway = await startTestGateway({ catalogYaml: `${catalog}${tools}\n` });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), orders?.close()]);
});

const ORDERS = { type: 'gateway:mcp', server: 'orders', allowed_tools: ['slow', 'wait'] };

describe('a call that times out next to another request\'s call on the same server', () => {
  it('fails alone: the other call, under way when the first timed out, is served', async () => {
    // The fake answers in queue order, which is the order of the model calls: slow's call, the wait's call,
    // the final turns (the same text, whichever request comes first).
    upstream.enqueue(anthropicStep({ calls: [{ name: 'mcp__orders__slow', input: {} }], usage: { input: 20, output: 8 } }));
    const slow = runLoop(gateway, loopBody('test/claude', [ORDERS]), false);
    await orders.slowStarted();
    // Started 3 s into the slow call, the wait runs from about 3 s to 7 s: across the slow call's timeout at 6 s,
    // and two seconds inside its own (a loaded machine adds to each call's own time).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'mcp__orders__wait', input: { ms: 4_000 } }], usage: { input: 20, output: 8 } }),
      anthropicStep({ text: 'Noted.', usage: { input: 60, output: 9 } }),
      anthropicStep({ text: 'Noted.', usage: { input: 60, output: 9 } }),
    );
    const waiting = runLoop(gateway, loopBody('test/claude', [ORDERS]), true);

    const timedOut = await slow;
    expect(timedOut.message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: true });
    expect(JSON.stringify(timedOut.message.content[1])).toMatch(/timed out/i);
    const { message } = await waiting;
    expect(message.content[1]).toEqual({
      type: 'mcp_tool_result',
      tool_use_id: (message.content[0] as unknown as { id: string }).id,
      is_error: false,
      content: [{ type: 'text', text: 'waited 4000 ms' }],
    });
    expect(orders.sessionsOpened()).toBe(1);
  });
});

describe('a call whose connection is cut next to another request\'s call on the same server', () => {
  it('fails alone: the other call, under way on the shared session, is served, and the next call gets a new session', async () => {
    const tools = [{ type: 'gateway:mcp', server: 'orders', allowed_tools: ['cut', 'wait'] }];
    upstream.enqueue(anthropicStep({ calls: [{ name: 'mcp__orders__wait', input: { ms: 1_500 } }], usage: { input: 20, output: 8 } }));
    const waiting = runLoop(gateway, loopBody('test/claude', tools), false);
    // The wait's call is under way once the server has it.
    await until(() => orders.toolCalls.includes('wait'));
    const opened = orders.sessionsOpened();
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'mcp__orders__cut', input: {} }], usage: { input: 20, output: 8 } }),
      anthropicStep({ text: 'Noted.', usage: { input: 60, output: 9 } }),
      anthropicStep({ text: 'Noted.', usage: { input: 60, output: 9 } }),
    );
    const cut = await runLoop(gateway, loopBody('test/claude', tools), false);
    expect(cut.message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: true });

    const { message } = await waiting;
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: false, content: [{ type: 'text', text: 'waited 1500 ms' }] });
    // The suspect session is not used again.
    upstream.enqueue(anthropicStep({ calls: [{ name: 'mcp__orders__wait', input: { ms: 1 } }], usage: { input: 20, output: 8 } }), anthropicStep({ text: 'Noted.', usage: { input: 60, output: 9 } }));
    const after = await runLoop(gateway, loopBody('test/claude', tools), false);
    expect(after.message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: false });
    expect(orders.sessionsOpened()).toBe(opened + 1);
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 5_000) throw new Error('the condition did not hold within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
