/**
 * An MCP server's configured credentials (a bearer token, an API key header and a key in its URL's query) never leave the gateway
 * through what the server says, whichever way it says it: quoted whole or base64-, hex- or percent-encoded,
 * in a tool's description, in a tool's result (text, an embedded resource, structured content), in a tool
 * error result, in a JSON-RPC error and in an HTTP 401's body. Driven with the Anthropic SDK, JSON and stream;
 * checked in the answers, in what the model was sent, in the log, in the generation records, in the webhook,
 * OTLP and Langfuse deliveries (all with content) and in `/metrics`. The calls still work: the model gets the
 * server's words with the secrets cut out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { startEchoMcpServer, type EchoMcpServer } from '#test/helpers/fake-tool-servers/echo-mcp-server.ts';
import { loopBody, runLoop } from './loop-support.ts';
import { leaks, sinkTexts, startSinkGateway, type SinkGateway } from './secret-sinks.ts';

const TOKEN = distinctiveKey('mcpbearer');
const API_KEY = distinctiveKey('mcpapikey');
// Servers that take their key in the URL (`?api_key=`): the query's values are secrets like the headers'.
const QUERY_KEY = distinctiveKey('mcpquerykey');

let echo: EchoMcpServer;
let setup: SinkGateway;
const answers: unknown[] = [];

beforeAll(async () => {
  echo = await startEchoMcpServer();
  setup = await startSinkGateway(['  mcp_servers:', `    vault: { url: "${echo.url}?api_key=\${VAULT_QUERY_KEY}", timeout_ms: 5000, headers: { Authorization: "Bearer \${VAULT_TOKEN}", X-Api-Key: "\${VAULT_KEY}" } }`], { VAULT_TOKEN: TOKEN, VAULT_KEY: API_KEY, VAULT_QUERY_KEY: QUERY_KEY });
});

afterAll(async () => {
  await setup?.close();
  await echo?.close();
});

const CALLS = ['whoami', 'whoami_failed', 'denied', 'revoked'];

describe.each([false, true])('a server that quotes the credentials it was sent (stream: %s)', (stream) => {
  it('every call gets its result or its error, with the credentials cut out', async () => {
    echo.toolCalls.length = 0;
    setup.upstream.enqueue(
      anthropicStep({ calls: CALLS.map((name) => ({ name: `mcp__vault__${name}`, input: {} })), usage: { input: 30, output: 12 } }),
      anthropicStep({ text: 'Done.', usage: { input: 90, output: 3 } }),
    );
    const { message, events } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'vault' }]), stream);
    answers.push(message, events);
    expect(echo.toolCalls).toEqual(CALLS);
    const results = message.content.filter((block) => (block.type as string) === 'mcp_tool_result') as unknown as { is_error: boolean; content: { text: string }[] }[];
    expect(results.map((result) => result.is_error)).toEqual([false, true, true, true]);
    // The server's words arrive, the secrets in them replaced.
    expect(results[0]?.content[0]?.text).toMatch(/^You are authorization \[REDACTED\]; token ?\[REDACTED\]/);
    expect(results[2]?.content[0]?.text).toContain('lack the scope orders:read');
    expect(results[3]?.content[0]?.text).toContain('401');
    expect(JSON.stringify(results)).toContain('[REDACTED]');
  });
});

it('no form of either credential is in the answers, the model\'s requests, the log, the records, the exports or /metrics', async () => {
  const texts = await sinkTexts(setup, answers, 2);
  expect(leaks(texts, [TOKEN, API_KEY, QUERY_KEY])).toEqual([]);
  // The tool description reached the model, without the credentials in it.
  expect(texts['the model\'s requests'].includes('Says who the caller is. Debug: authorization [REDACTED];')).toBe(true);
});
