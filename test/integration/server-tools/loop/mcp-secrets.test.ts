/**
 * The secrets of an MCP server's configured headers never reach a client, the model or a log line, over HTTP
 * with the Anthropic SDK as the client, even when the server's error page quotes them: a 401 whose body names
 * the revoked token becomes an error result that says the server refused, with the token masked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startRawMcpServer, type RawMcpServer } from '#test/helpers/fake-tool-servers/raw-mcp-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { loopBody, runLoop } from './loop-support.ts';

const TOKEN = 'vault-mcp-token-5521-zeta-0042';
const API_KEY = 'tenant-key-88f1c2d9e7';

let upstream: FakeUpstream;
let vault: RawMcpServer;
let gateway: TestGateway;

beforeAll(async () => {
  [upstream, vault] = await Promise.all([
    startFakeAnthropic(),
    startRawMcpServer([{ name: 'read_secret', description: 'Reads a secret.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }], { refuseCalls: true }),
  ]);
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }])]);
  const tools = ['server_tools:', '  mcp_servers:', `    vault: { url: "${vault.url}", timeout_ms: 5000, headers: { Authorization: "Bearer \${VAULT_MCP_TOKEN}", X-Tenant-Key: "\${VAULT_TENANT_KEY}" } }`];
  gateway = await startTestGateway({ catalogYaml: `${catalog}${tools.join('\n')}\n`, env: { VAULT_MCP_TOKEN: TOKEN, VAULT_TENANT_KEY: API_KEY } });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), vault?.close()]);
});

describe.each([false, true])('an MCP server whose refusal quotes the token it was sent (stream: %s)', (stream) => {
  it('the error result says the server refused, without the token; the model and the logs never see it', async () => {
    upstream.clear();
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'mcp__vault__read_secret', input: { path: 'db/password' } }], usage: { input: 20, output: 8 } }),
      anthropicStep({ text: 'The vault refused the gateway.', usage: { input: 60, output: 9 } }),
    );
    const { message, events } = await runLoop(gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'vault' }]), stream);
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: true });
    const shown = JSON.stringify(message.content[1]);
    expect(shown).toContain('401');
    expect(shown).toContain('[REDACTED]');
    for (const text of [JSON.stringify(message), JSON.stringify(events), JSON.stringify(upstream.requests), gateway.logs.join('\n')]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(API_KEY);
    }
  });
});
