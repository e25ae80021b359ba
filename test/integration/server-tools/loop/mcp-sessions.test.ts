/**
 * MCP servers that keep sessions (`Mcp-Session-Id`), as most deployed ones do, end to end over HTTP with the
 * Anthropic SDK as the client: the gateway holds one session per server across requests, and when the server
 * forgets it (a restart or a deploy, answered 404 as the MCP spec says) the gateway starts a new session instead
 * of failing every call until the tool list's TTL runs out. A session the gateway gives up (a connection cut
 * mid-call) or no longer needs (shutdown) is ended with a DELETE, as the spec says clients should, so the server
 * is not left holding one more session per reconnect.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startMcpTestServer, type McpTestServer } from '#test/helpers/fake-tool-servers/mcp-test-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { loopBody, runLoop, toolNamesOf } from './loop-support.ts';

let upstream: FakeUpstream;
let orders: McpTestServer;
let slowpoke: McpTestServer;
let gateway: TestGateway | undefined;

beforeAll(async () => {
  [upstream, orders, slowpoke] = await Promise.all([startFakeAnthropic(), startMcpTestServer({ sessions: true }), startMcpTestServer({ sessions: true })]);
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }])]);
  const tools = ['server_tools:', '  mcp_servers:', `    orders: { url: "${orders.url}", timeout_ms: 5000 }`, `    slowpoke: { url: "${slowpoke.url}", timeout_ms: 5000 }`].join('\n');
  gateway = await startTestGateway({ catalogYaml: `${catalog}${tools}\n` });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), orders?.close(), slowpoke?.close()]);
});

function running(): TestGateway {
  if (!gateway) throw new Error('the gateway was closed');
  return gateway;
}

beforeEach(() => upstream.clear());

const ORDERS = { type: 'gateway:mcp', server: 'orders', allowed_tools: ['lookup_order'] };

function lookUpOrder(): void {
  upstream.enqueue(
    anthropicStep({ calls: [{ name: 'mcp__orders__lookup_order', input: { order_id: 'A-1001' } }], usage: { input: 20, output: 8 } }),
    anthropicStep({ text: 'Your order shipped on 2 March.', usage: { input: 90, output: 9 } }),
  );
}

describe.each([false, true])('an MCP server with sessions (stream: %s)', (stream) => {
  it('one session serves every request', async () => {
    const before = orders.sessionsOpened();
    for (let request = 0; request < 2; request += 1) {
      lookUpOrder();
      const { message } = await runLoop(running(), loopBody('test/claude', [ORDERS]), stream);
      expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: false });
    }
    expect(orders.sessionCount()).toBe(1);
    expect(orders.sessionsOpened() - before).toBeLessThanOrEqual(1);
  });

  it('a server that forgot the session (restarted): the gateway starts a new one and the call succeeds', async () => {
    lookUpOrder();
    await runLoop(running(), loopBody('test/claude', [ORDERS]), stream);
    const opened = orders.sessionsOpened();
    await orders.forgetSessions();
    const calls = orders.toolCalls.length;

    lookUpOrder();
    const { message } = await runLoop(running(), loopBody('test/claude', [ORDERS]), stream);
    expect(message.content[1]).toEqual({
      type: 'mcp_tool_result',
      tool_use_id: (message.content[0] as unknown as { id: string }).id,
      is_error: false,
      content: [{ type: 'text', text: 'Order A-1001: shipped on 2026-03-02, 2 items.' }],
    });
    expect(orders.toolCalls.length - calls).toBe(1);
    expect(orders.sessionsOpened()).toBe(opened + 1);
    expect(orders.sessionCount()).toBe(1);
  });
});

describe('a server whose tool list changes', () => {
  it('notifications/tools/list_changed: the next request is offered the new tool, without waiting for the TTL', async () => {
    const offered = async (): Promise<string[]> => {
      upstream.clear();
      upstream.enqueue(anthropicStep({ text: 'Nothing to look up.', usage: { input: 20, output: 5 } }));
      await runLoop(running(), loopBody('test/claude', [{ type: 'gateway:mcp', server: 'orders' }]), false);
      return toolNamesOf(upstream.requests[0]);
    };
    expect(await offered()).not.toContain('mcp__orders__track_parcel');
    const lists = orders.toolListCalls();
    orders.addTool('track_parcel');
    await expect.poll(offered, { timeout: 3_000 }).toContain('mcp__orders__track_parcel');
    expect(orders.toolListCalls()).toBe(lists + 1);
  });
});

describe('sessions the gateway is done with are ended', () => {
  const SLOWPOKE = { type: 'gateway:mcp', server: 'slowpoke', allowed_tools: ['slow', 'lookup_order'] };

  it('a connection cut mid-call: its session is ended before the next request opens a new one', async () => {
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'mcp__slowpoke__slow', input: {} }], usage: { input: 20, output: 8 } }),
      anthropicStep({ text: 'That tool is not answering.', usage: { input: 60, output: 9 } }),
    );
    const pending = runLoop(running(), loopBody('test/claude', [SLOWPOKE]), false);
    await slowpoke.slowStarted();
    slowpoke.cutConnections();
    const cut = await pending;
    expect(cut.message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: true });

    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'mcp__slowpoke__lookup_order', input: { order_id: 'A-1001' } }], usage: { input: 20, output: 8 } }),
      anthropicStep({ text: 'Your order shipped on 2 March.', usage: { input: 90, output: 9 } }),
    );
    const { message } = await runLoop(running(), loopBody('test/claude', [SLOWPOKE]), true);
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: false });
    expect(slowpoke.sessionsOpened()).toBe(2);
    await expect.poll(() => slowpoke.sessionCount()).toBe(1);
  });

  it('shutting the gateway down ends its sessions', async () => {
    expect(orders.sessionCount()).toBe(1);
    expect(slowpoke.sessionCount()).toBe(1);
    await running().close();
    gateway = undefined;
    expect(orders.sessionCount()).toBe(0);
    expect(slowpoke.sessionCount()).toBe(0);
  });
});
