/**
 * An MCP server whose token is in its URL's path, as hosted servers give theirs (Zapier's
 * `/api/mcp/s/<token>/mcp`): the token never leaves the gateway through what the server says about its own
 * URL, whole or encoded: in a tool's description and result, a tool error, a JSON-RPC error, an HTTP 401's
 * body, and the SDK's error for a redirect to another origin (which names the target's path). A server at a
 * token URL that refuses connections is logged by its URL with the token as `***`. Driven with the Anthropic
 * SDK, JSON and stream; checked in the answers, what the model was sent, the log, the generation records
 * (`GET /generations/{id}` with content), the exports and `/metrics`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { startEchoMcpServer, type EchoMcpServer } from '#test/helpers/fake-tool-servers/echo-mcp-server.ts';
import { startMcpTestServer } from '#test/helpers/fake-tool-servers/mcp-test-server.ts';
import { loopBody, runLoop } from './loop-support.ts';
import { leaks, sinkTexts, startSinkGateway, type SinkGateway } from './secret-sinks.ts';

const PATH_TOKEN = distinctiveKey('mcppathtoken');
const GONE_TOKEN = distinctiveKey('mcpgonetoken');

let echo: EchoMcpServer;
let gonePort: string;
let setup: SinkGateway;
const answers: unknown[] = [];

beforeAll(async () => {
  echo = await startEchoMcpServer();
  // A server that was there and is gone: its port refuses connections.
  const gone = await startMcpTestServer();
  await gone.close();
  gonePort = new URL(gone.url).port;
  const origin = new URL(echo.url).origin;
  setup = await startSinkGateway(
    [
      '  mcp_servers:',
      // The whole URL from the environment, as an operator keeps a URL with a token in it.
      '    zap: { url: "${ZAP_MCP_URL}", timeout_ms: 5000 }',
      `    gone: { url: "http://127.0.0.1:${gonePort}/s/${GONE_TOKEN}/mcp", timeout_ms: 2000 }`,
    ],
    { ZAP_MCP_URL: `${origin}/api/mcp/s/${PATH_TOKEN}/mcp` },
  );
});

afterAll(async () => {
  await setup?.close();
  await echo?.close();
});

const CALLS = ['whoami', 'whoami_failed', 'denied', 'revoked', 'moved'];

describe.each([false, true])('a server that quotes its own URL (stream: %s)', (stream) => {
  it('every call gets its result or its error, with the path token cut out', async () => {
    echo.toolCalls.length = 0;
    setup.upstream.enqueue(
      anthropicStep({ calls: CALLS.map((name) => ({ name: `mcp__zap__${name}`, input: {} })), usage: { input: 30, output: 12 } }),
      anthropicStep({ text: 'Done.', usage: { input: 90, output: 3 } }),
    );
    const { message, events } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'zap' }]), stream);
    answers.push(message, events);
    expect(echo.toolCalls).toEqual(CALLS);
    const results = message.content.filter((block) => (block.type as string) === 'mcp_tool_result') as unknown as { is_error: boolean; content: { text: string }[] }[];
    expect(results.map((result) => result.is_error)).toEqual([false, true, true, true, true]);
    // The server's words arrive, the token in them replaced.
    expect(results[0]?.content[0]?.text).toContain('/api/mcp/s/[REDACTED]/mcp; query key');
    expect(results[2]?.content[0]?.text).toContain('lack the scope orders:read');
    expect(results[3]?.content[0]?.text).toContain('401');
    expect(results[4]?.content[0]?.text).toMatch(/Redirect to http:\/\/localhost:\d+\/api\/mcp\/s\/\[REDACTED\]\/mcp not followed/);
  });
});

it('a server at a token URL that refuses connections: not offered, its log line names the URL with the token as ***', async () => {
  setup.upstream.enqueue(anthropicStep({ text: 'The server is not reachable.', usage: { input: 20, output: 6 } }));
  const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'gone' }]), false);
  answers.push(message);
  const failed = setup.gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.message === 'mcp server tool list failed' && line.server === 'gone');
  expect(failed).toMatchObject({ url: `http://127.0.0.1:${gonePort}/s/***/mcp`, reason: 'fetch failed (ECONNREFUSED)' });
});

it('no form of either token is in the answers, the model\'s requests, the log, the records, the exports or /metrics', async () => {
  const texts = await sinkTexts(setup, answers, 3);
  expect(leaks(texts, [PATH_TOKEN, GONE_TOKEN])).toEqual([]);
  // The tool description reached the model, without the token in it.
  expect(texts['the model\'s requests']).toContain('/api/mcp/s/[REDACTED]/mcp; query key');
});
