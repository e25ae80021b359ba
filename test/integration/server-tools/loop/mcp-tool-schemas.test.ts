/**
 * MCP tools' input schemas as vendors accept them, over HTTP with the Anthropic SDK as the client. MCP lets a
 * tool without arguments list `{"type": "object"}` (Python, Go and Rust servers do); OpenAI refuses such a
 * function with a 400 ("Invalid schema for function ...: In context=(), object schema missing properties"), so
 * the gateway offers it with `properties: {}`, and the request is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiChatStep, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startRawMcpServer, type RawMcpServer } from '#test/helpers/fake-tool-servers/raw-mcp-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { bodyOf, loopBody, runLoop } from './loop-support.ts';

let openai: FakeUpstream;
let regions: RawMcpServer;
let gateway: TestGateway;

beforeAll(async () => {
  [openai, regions] = await Promise.all([
    startFakeOpenAiChat(),
    startRawMcpServer([
      { name: 'list_regions', description: 'Lists the regions.', inputSchema: { type: 'object' } },
      { name: 'describe_region', description: 'Describes one region.', inputSchema: { type: 'object', properties: { region: { type: 'string' } }, required: ['region'] } },
    ]),
  ]);
  const providers = [`  openai: { base_url: "${openai.baseURL}", api_key: "sk-openai-schemas-0001", family: openai-chat }`];
  const catalog = catalogYaml(providers, [modelYaml('test/gpt', [{ provider: 'openai', model: 'gpt-schemas', price: [1, 4] }])]);
  const tools = ['server_tools:', '  mcp_servers:', `    regions: { url: "${regions.url}", timeout_ms: 5000 }`].join('\n');
  gateway = await startTestGateway({ catalogYaml: `${catalog}${tools}\n` });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), regions?.close()]);
});

type FunctionTool = { type: string; function: { name: string; parameters: Record<string, unknown> } };

describe('an MCP tool whose input schema is a bare object', () => {
  it('is offered to OpenAI with properties: {}, and its call runs', async () => {
    openai.enqueue(
      openAiChatStep({ calls: [{ name: 'mcp__regions__list_regions', input: {} }], usage: { input: 30, output: 6 } }),
      openAiChatStep({ text: 'There are three regions.', usage: { input: 60, output: 7 } }),
    );
    const { message } = await runLoop(gateway, loopBody('test/gpt', [{ type: 'gateway:mcp', server: 'regions' }]), false);
    const offered = (bodyOf(openai.requests[0]).tools as FunctionTool[]).map((tool) => [tool.function.name, tool.function.parameters]);
    expect(offered).toEqual([
      ['mcp__regions__list_regions', expect.objectContaining({ type: 'object', properties: {} })],
      ['mcp__regions__describe_region', expect.objectContaining({ type: 'object', properties: { region: { type: 'string' } }, required: ['region'] })],
    ]);
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: false, content: [{ type: 'text', text: 'list_regions done' }] });
    expect(regions.toolCalls).toEqual(['list_regions']);
  });
});
