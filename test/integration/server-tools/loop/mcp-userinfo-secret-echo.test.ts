/**
 * MCP servers configured with credentials in their URL's user-info (`http://user:password@host/mcp`), each
 * behind HTTP Basic authentication (a 401 without exactly the right header, as nginx's `auth_basic` answers):
 * the gateway calls them without the user-info and with `Authorization: Basic base64(user:password)`, the
 * pair percent-decoded, so their tools work in a tool loop. A server that quotes the header it was sent, in a
 * tool's description and result, a tool error, a JSON-RPC error and an HTTP 401's body, shows `[REDACTED]`:
 * neither password nor the Basic token leaves the gateway, as written, decoded or encoded. Driven with the
 * Anthropic SDK; checked in the answers, what the model was sent, the log, the records, the exports and
 * `/metrics`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { startEchoMcpServer, type EchoMcpServer } from '#test/helpers/fake-tool-servers/echo-mcp-server.ts';
import { startMcpTestServer } from '#test/helpers/fake-tool-servers/mcp-test-server.ts';
import { loopBody, runLoop } from './loop-support.ts';
import { leaks, sinkTexts, startSinkGateway, type SinkGateway } from './secret-sinks.ts';

// Written percent-encoded in the URL (a `@` and a `/` must be): the server, or an error, may quote either form.
const PASSWORD = `p@ss/${distinctiveKey('mcpencodedpassword')}`;
const basic = (pair: string) => `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
const TOKEN = basic(`gateway:${PASSWORD}`).slice('Basic '.length);

let short: EchoMcpServer;
let echo: EchoMcpServer;
let setup: SinkGateway;
let gonePort: string;
const answers: unknown[] = [];

beforeAll(async () => {
  // A server that was there and is gone: its port refuses connections.
  const gone = await startMcpTestServer();
  await gone.close();
  gonePort = new URL(gone.url).port;
  [short, echo] = await Promise.all([startEchoMcpServer({ requireAuthorization: basic('u:p@ss') }), startEchoMcpServer({ requireAuthorization: basic(`gateway:${PASSWORD}`) })]);
  setup = await startSinkGateway(
    [
      '  mcp_servers:',
      `    short: { url: "http://u:p%40ss@127.0.0.1:${new URL(short.url).port}/mcp", timeout_ms: 5000 }`,
      // The whole URL from the environment, as an operator keeps a URL with a password in it.
      '    echo: { url: "${ECHO_MCP_URL}", timeout_ms: 5000 }',
      `    gone: { url: "http://gateway:${encodeURIComponent(PASSWORD)}@127.0.0.1:${gonePort}/mcp", timeout_ms: 2000 }`,
    ],
    { ECHO_MCP_URL: `http://gateway:${encodeURIComponent(PASSWORD)}@127.0.0.1:${new URL(echo.url).port}/mcp` },
  );
});

afterAll(async () => {
  await setup?.close();
  await Promise.all([short?.close(), echo?.close()]);
});

it('a server behind Basic authentication, reached through http://u:p%40ss@…, serves its tool in the loop', async () => {
  setup.upstream.enqueue(anthropicStep({ calls: [{ name: 'mcp__short__whoami', input: {} }], usage: { input: 20, output: 6 } }), anthropicStep({ text: 'Done.', usage: { input: 40, output: 2 } }));
  const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'short' }]), false);
  answers.push(message);
  expect(short.toolCalls).toEqual(['whoami']);
  // Every request (initialize, the list, the call) carried the decoded pair as Basic authentication.
  expect(short.authorizations.length).toBeGreaterThanOrEqual(3);
  expect(new Set(short.authorizations)).toEqual(new Set([basic('u:p@ss')]));
  const result = message.content.find((block) => (block.type as string) === 'mcp_tool_result') as unknown as { is_error: boolean; content: { text: string }[] };
  expect(result.is_error).toBe(false);
  // The server quotes the header it got: the token in it is cut.
  expect(result.content[0]?.text).toContain('authorization Basic [REDACTED]');
  expect(message.content.at(-1)).toMatchObject({ type: 'text', text: 'Done.' });
});

const CALLS = ['whoami', 'whoami_failed', 'denied', 'revoked'];

it('a server that quotes the Basic header it was sent: every result and error arrives with the credentials cut', async () => {
  setup.upstream.enqueue(
    anthropicStep({ calls: CALLS.map((name) => ({ name: `mcp__echo__${name}`, input: {} })), usage: { input: 30, output: 12 } }),
    anthropicStep({ text: 'Done.', usage: { input: 90, output: 3 } }),
  );
  const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'echo' }]), false);
  answers.push(message);
  expect(echo.toolCalls).toEqual(CALLS);
  expect(new Set(echo.authorizations)).toEqual(new Set([basic(`gateway:${PASSWORD}`)]));
  const results = message.content.filter((block) => (block.type as string) === 'mcp_tool_result') as unknown as { is_error: boolean; content: { text: string }[] }[];
  expect(results.map((result) => result.is_error)).toEqual([false, true, true, true]);
  expect(results[0]?.content[0]?.text).toContain('authorization Basic [REDACTED]');
  expect(results[2]?.content[0]?.text).toContain('lack the scope orders:read');
  // The 401's body quotes the header: the error the model and client read has it cut.
  expect(results[3]?.content[0]?.text).toContain('401');
  expect(results[3]?.content[0]?.text).not.toContain(TOKEN.slice(0, 12));
});

it('a server with user-info that refuses connections: not offered, its log line names the URL with the user-info as ***', async () => {
  setup.upstream.enqueue(anthropicStep({ text: 'The server is not reachable.', usage: { input: 20, output: 6 } }));
  const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'gone' }]), false);
  answers.push(message);
  const failed = setup.gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.message === 'mcp server tool list failed' && line.server === 'gone');
  expect(failed).toMatchObject({ url: `http://***@127.0.0.1:${gonePort}/mcp`, reason: 'fetch failed (ECONNREFUSED)' });
});

it('no form of the password or the Basic token is in the answers, the model\'s requests, the log, the records, the exports or /metrics', async () => {
  const texts = await sinkTexts(setup, answers, 3);
  expect(leaks(texts, [PASSWORD, encodeURIComponent(PASSWORD), `gateway:${PASSWORD}`, TOKEN])).toEqual([]);
  // The tool description reached the model, the header in it cut.
  expect(texts['the model\'s requests']).toContain('authorization Basic [REDACTED]');
});
