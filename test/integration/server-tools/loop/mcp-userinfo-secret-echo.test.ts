/**
 * An MCP server configured with a password in its URL's user-info (`http://user:password@host/mcp`): the
 * password never leaves the gateway, as written or decoded. The MCP SDK's transport calls the server with
 * fetch, which refuses such a URL with an error quoting it whole ("Request cannot be constructed from a URL
 * that includes credentials: …"); that error is the reason the gateway logs for the server's failed tool
 * list, its URL shown with the user-info as `***`. Driven with the Anthropic SDK; checked in the log line, and
 * in the answers, what the model was sent, the log, the records, the exports and `/metrics`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { startEchoMcpServer, type EchoMcpServer } from '#test/helpers/fake-tool-servers/echo-mcp-server.ts';
import { loopBody, runLoop } from './loop-support.ts';
import { leaks, sinkTexts, startSinkGateway, type SinkGateway } from './secret-sinks.ts';

const PASSWORD = distinctiveKey('mcpuserpassword');
// Written percent-encoded in the URL (a `@` must be): the server, or an error, may quote either form.
const ENCODED_PASSWORD = `p@ss/${distinctiveKey('mcpencodedpassword')}`;

let echo: EchoMcpServer;
let setup: SinkGateway;
let port: string;
const answers: unknown[] = [];

beforeAll(async () => {
  echo = await startEchoMcpServer();
  port = new URL(echo.url).port;
  setup = await startSinkGateway(
    [
      '  mcp_servers:',
      // The whole URL from the environment, as an operator keeps a URL with a password in it.
      '    basic: { url: "${BASIC_MCP_URL}", timeout_ms: 5000 }',
      '    encoded: { url: "${ENCODED_MCP_URL}", timeout_ms: 5000 }',
    ],
    {
      BASIC_MCP_URL: `http://gateway:${PASSWORD}@127.0.0.1:${port}/mcp`,
      ENCODED_MCP_URL: `http://gateway:${encodeURIComponent(ENCODED_PASSWORD)}@127.0.0.1:${port}/mcp`,
    },
  );
});

afterAll(async () => {
  await setup?.close();
  await echo?.close();
});

it('the failed tool list is logged with the URL\'s user-info as *** and the password cut from the reason', async () => {
  setup.upstream.enqueue(anthropicStep({ text: 'The servers are not reachable.', usage: { input: 20, output: 6 } }));
  const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'basic' }, { type: 'gateway:mcp', server: 'encoded' }]), false);
  answers.push(message);
  const failed = setup.gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === 'mcp server tool list failed');
  for (const server of ['basic', 'encoded']) {
    const line = failed.find((entry) => entry.server === server);
    expect(line, server).toMatchObject({ url: `http://***@127.0.0.1:${port}/mcp` });
    // fetch's words arrive, the user-info in them (the pair holding the password) replaced.
    expect(String(line?.reason)).toMatch(/^Request cannot be constructed from a URL that includes credentials: http:\/\/\[REDACTED\]@127\.0\.0\.1:\d+\/mcp/);
  }
});

it('no form of either password is in the answers, the model\'s requests, the log, the records, the exports or /metrics', async () => {
  const texts = await sinkTexts(setup, answers, 1);
  expect(leaks(texts, [PASSWORD, ENCODED_PASSWORD])).toEqual([]);
});
