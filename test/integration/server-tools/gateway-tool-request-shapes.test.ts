/**
 * Over HTTP: the spec's shapes of the gateway tool entries. A malformed entry is a 400 naming the field before
 * anything else happens, and a gateway configured with a `server_tools:` section starts and serves requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, errorMessage, messageBody, modelYaml, postMessage } from '../routing/routing-support.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  const serverTools = [
    'server_tools:',
    '  web_search: { backend: searxng, base_url: "http://127.0.0.1:1" }',
    '  web_fetch: { max_bytes: 2000000, private_network_allowlist: ["10.0.0.0/8"] }',
    '  mcp_servers:',
    '    docs: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${DOCS_TOKEN:-none}" } }',
  ].join('\n');
  gateway = await startTestGateway({
    catalogYaml: `${catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/primary', [{ provider: 'alpha', model: 'up-primary', price: [1, 2] }])])}${serverTools}\n`,
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('gateway tool entries are checked against the spec', () => {
  it.each([
    ['a setting of another tool', { type: 'gateway:web_search', timezone: 'Europe/Paris' }, 'timezone', 'must NOT have additional properties', "tools[0] (type gateway:web_search) must NOT have the property 'timezone'"],
    ['max_results below 1', { type: 'gateway:web_search', max_results: 0 }, 'max_results', 'must be >= 1', 'tools[0].max_results must be >= 1'],
    ['an invalid model-facing name', { type: 'gateway:datetime', name: 'what time?' }, 'name', 'must match pattern "^[a-zA-Z0-9_-]{1,64}$"', 'tools[0].name must match pattern "^[a-zA-Z0-9_-]{1,64}$"'],
    ['an MCP entry without a server', { type: 'gateway:mcp' }, 'server', "must have required property 'server'", "tools[0] (type gateway:mcp) must have required property 'server'"],
    ['an empty allowed_tools', { type: 'gateway:mcp', server: 'docs', allowed_tools: [] }, 'allowed_tools', 'must NOT have fewer than 1 items', 'tools[0].allowed_tools must NOT have fewer than 1 items'],
    ['a domain list that is not a list', { type: 'gateway:web_fetch', allowed_domains: 'example.com' }, 'allowed_domains', 'must be array', 'tools[0].allowed_domains must be array'],
  ])('%s is a 400 naming the field', async (_name, tool, field, message, reason) => {
    const call = await postMessage(gateway, messageBody('test/primary', { tools: [tool] }));
    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe(`Invalid request parameters: ${reason}`);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error', details: { error_code: 'invalid_request_parameters', parameters: [{ path: `/body/tools/0/${field}`, message }] } });
    expect(upstream.requests).toHaveLength(0);
  });

  it('a request without gateway tools is served as before on a gateway with server_tools configured', async () => {
    upstream.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/primary'));
    expect(call.status, JSON.stringify(call.body)).toBe(200);
  });
});
