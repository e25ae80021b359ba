/**
 * Over HTTP: the model-facing names of gateway tools cannot meet. MCP server names may hold `__`, so the
 * prefixes `mcp__docs` and `mcp__docs__x` both make `mcp__docs__x__y` (the tool `x__y` of `docs`, the tool `y`
 * of `docs__x`): such a request is a 400 naming the entry, before any server or model is asked; with `name`
 * set on one entry, each tool has its own name and a call reaches its own server. A gateway tool named as a
 * client tool is a 400 too. A tool name shortened with a hash never takes another tool's name: a server listing
 * `a_b_648fa9b3` (the name `a_b` would be shortened to, after `a.b` took `mcp__tricky__a_b`) offers three tools,
 * and a call of each reaches its own tool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startRawMcpServer, type RawMcpServer } from '#test/helpers/fake-tool-servers/raw-mcp-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, errorMessage, modelYaml, postMessage } from '#test/integration/routing/routing-support.ts';
import { loopBody, runLoop, toolNamesOf } from './loop-support.ts';

let upstream: FakeUpstream;
let docs: RawMcpServer;
let docsX: RawMcpServer;
let tricky: RawMcpServer;
let gateway: TestGateway;

beforeAll(async () => {
  const schema = { type: 'object' as const, properties: {} };
  [upstream, docs, docsX, tricky] = await Promise.all([
    startFakeAnthropic(),
    startRawMcpServer([{ name: 'x__y', description: 'The tool x__y of docs.', inputSchema: schema }]),
    startRawMcpServer([{ name: 'y', description: 'The tool y of docs__x.', inputSchema: schema }]),
    // sha256('a_b') starts 648fa9b3: the hashed name of a_b, listed first as a tool of its own.
    startRawMcpServer(['a_b_648fa9b3', 'a.b', 'a_b'].map((name) => ({ name, description: `The tool ${name}.`, inputSchema: schema }))),
  ]);
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [1, 2] }])]);
  const tools = ['server_tools:', '  mcp_servers:', `    docs: { url: "${docs.url}", timeout_ms: 5000 }`, `    docs__x: { url: "${docsX.url}", timeout_ms: 5000 }`, `    tricky: { url: "${tricky.url}", timeout_ms: 5000 }`].join('\n');
  gateway = await startTestGateway({ catalogYaml: `${catalog}${tools}\n` });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), docs?.close(), docsX?.close(), tricky?.close()]);
});

describe('gateway tool names that could meet', () => {
  it.each([
    [
      'MCP servers whose default prefixes overlap (docs, docs__x)',
      [{ type: 'gateway:mcp', server: 'docs' }, { type: 'gateway:mcp', server: 'docs__x' }],
      'tools[1].name: the prefix mcp__docs__x overlaps the prefix mcp__docs of tools[0] (MCP server docs): tool names of the form mcp__docs__x__<tool> and mcp__docs__<tool> could be the same name; set "name" on one of them to a prefix that does not start with the other followed by __',
    ],
    [
      'prefixes set by name that overlap (kb_, kb)',
      [{ type: 'gateway:mcp', server: 'docs__x', name: 'kb_' }, { type: 'gateway:mcp', server: 'docs', name: 'kb' }],
      'tools[1].name: the prefix kb overlaps the prefix kb_ of tools[0] (MCP server docs__x): tool names of the form kb__<tool> and kb___<tool> could be the same name; set "name" on one of them to a prefix that does not start with the other followed by __',
    ],
    [
      'a gateway tool named as a client tool',
      [{ name: 'datetime', description: 'The client\'s clock.', input_schema: { type: 'object', properties: {} } }, { type: 'gateway:datetime' }],
      'tools[1].type: the model-facing name datetime is already the name of tools[0] (set "name" to choose another)',
    ],
  ])('%s: a 400 naming the entry, and no server or model is asked', async (_name, tools, message) => {
    upstream.clear();
    const call = await postMessage(gateway, loopBody('test/claude', tools));
    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect(errorMessage(call)).toBe(`Invalid request parameters: ${message}`);
    expect(upstream.requests).toHaveLength(0);
    expect([docs.toolCalls, docsX.toolCalls]).toEqual([[], []]);
  });

  it('with name set on one entry, each tool has its own name and the call reaches its own server', async () => {
    upstream.clear();
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'mcp__docs__x__y', input: {} }], usage: { input: 20, output: 5 } }),
      anthropicStep({ text: 'Done.', usage: { input: 40, output: 3 } }),
    );
    const tools = [{ type: 'gateway:mcp', server: 'docs' }, { type: 'gateway:mcp', server: 'docs__x', name: 'docsx' }];
    const { message } = await runLoop(gateway, loopBody('test/claude', tools), false);
    expect(toolNamesOf(upstream.requests[0]).sort()).toEqual(['docsx__y', 'mcp__docs__x__y']);
    expect(message.content[1]).toMatchObject({ type: 'mcp_tool_result', is_error: false });
    expect(docs.toolCalls).toEqual(['x__y']);
    expect(docsX.toolCalls).toEqual([]);
  });
});

describe('a shortened tool name', () => {
  it('always keeps its prefix, which is at most 40 characters: a longer name is a 400 naming it', async () => {
    upstream.clear();
    const call = await postMessage(gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'tricky', name: 'p'.repeat(41) }]));
    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe('Invalid request parameters: tools[0].name must match pattern "^[a-zA-Z0-9_-]{1,40}$"');
    expect(upstream.requests).toHaveLength(0);
  });

  it('never takes another tool\'s name: three tools offered, each call reaching its own tool', async () => {
    upstream.clear();
    tricky.toolCalls.length = 0;
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'mcp__tricky__a_b_648fa9b3', input: {} }, { name: 'mcp__tricky__a_b', input: {} }], usage: { input: 20, output: 5 } }),
      anthropicStep({ text: 'Done.', usage: { input: 40, output: 3 } }),
    );
    await runLoop(gateway, loopBody('test/claude', [{ type: 'gateway:mcp', server: 'tricky' }]), false);
    const names = toolNamesOf(upstream.requests[0]);
    expect(names).toHaveLength(3);
    expect(new Set(names).size).toBe(3);
    expect(names.slice(0, 2)).toEqual(['mcp__tricky__a_b_648fa9b3', 'mcp__tricky__a_b']);
    expect(names[2]).toMatch(/^mcp__tricky__a_b_[0-9a-f]{8}$/);
    expect(tricky.toolCalls.sort()).toEqual(['a.b', 'a_b_648fa9b3']);
  });
});
