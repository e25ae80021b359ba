/**
 * The real Claude Code CLI with an MCP server (`--mcp-config`, a tiny stdio server written here) on Gemini,
 * OpenAI Responses and Bedrock Converse. The CLI names MCP tools `mcp__<server>__<tool>`; with a descriptive
 * server and tool name that runs past 64 characters, which all three refuse in a tool name with a 400 for the
 * whole request (the fakes do, with the vendors' messages). As the CLI does by default, the MCP tool is
 * deferred: the model loads it with ToolSearch, whose result reaches the vendor naming the stand-in the
 * gateway sends for the long name; the vendor calls the tool by the stand-in, the CLI gets its own name back,
 * runs the MCP tool and sends the result, which the vendor receives under the stand-in again. No function the
 * vendor sees bears the long name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockStep, geminiStep, startFakeBedrock, startFakeGemini, startFakeOpenAiResponses, type FakeReply, type FakeUpstream, type ScriptedStep } from '#test/helpers/fake-upstreams/index.ts';
import { vendorToolName } from '#src/providers/ai-sdk/map-tool-names.ts';
import { toolReferenceText } from '#src/providers/ai-sdk/convert-to-ai-sdk-parts.ts';
import { describeRun, expectAnswer, messageCalls, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';
import { responsesStep } from './vendor-read-calls.ts';

const SERVER = 'weather-forecast-service';
const TOOL = 'look_up_the_daily_forecast_for_a_city_by_name';
// 76 characters: what the CLI calls the MCP tool.
const CLI_NAME = `mcp__${SERVER}__${TOOL}`;
const FORECAST = 'Paris: sunny, 21 degrees';
const ANSWER = 'It will be sunny in Paris.';
const USAGE = { input: 3000, output: 12 };

// A stdio MCP server (newline-delimited JSON-RPC) with one tool, answering every call with FORECAST.
const MCP_SERVER_SOURCE = `
import { createInterface } from 'node:readline';
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
const tool = { name: ${JSON.stringify(TOOL)}, description: 'The daily weather forecast of a city.', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  if (method === 'initialize') send({ jsonrpc: '2.0', id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'weather', version: '1.0.0' } } });
  else if (method === 'tools/list') send({ jsonrpc: '2.0', id, result: { tools: [tool] } });
  else if (method === 'tools/call') send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: ${JSON.stringify(FORECAST)} }] } });
  else send({ jsonrpc: '2.0', id, result: {} });
});
`;

interface VendorCase {
  vendor: string;
  model: string;
  startUpstream: () => Promise<FakeUpstream>;
  providerYaml: (upstream: FakeUpstream) => string;
  step: (step: ScriptedStep) => FakeReply;
  /** The function names of the tools a request offered. */
  toolNames: (body: any) => string[];
}

const VENDORS: VendorCase[] = [
  {
    vendor: 'Gemini',
    model: 'google/gemini-2.5-pro',
    startUpstream: () => startFakeGemini(),
    providerYaml: (upstream) => `  google: { base_url: "${upstream.baseURL}", api_key: "gemini-shared-mcp-0001" }`,
    step: (step) => geminiStep(step),
    toolNames: (body) => body.tools.flatMap((tool: any) => tool.functionDeclarations.map((declaration: any) => declaration.name)),
  },
  {
    vendor: 'OpenAI Responses',
    model: 'openai/gpt-5-mini',
    startUpstream: () => startFakeOpenAiResponses(),
    providerYaml: (upstream) => `  openai: { base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-mcp-0001" }`,
    step: responsesStep,
    toolNames: (body) => body.tools.map((tool: any) => tool.name),
  },
  {
    vendor: 'Bedrock Converse',
    model: 'anthropic/claude-sonnet-4.5',
    startUpstream: () => startFakeBedrock(),
    providerYaml: (upstream) => `  bedrock: { base_url: "${upstream.url}", api_key: "bedrock-shared-mcp-0001" }`,
    step: (step) => bedrockStep(step),
    toolNames: (body) => body.toolConfig.tools.flatMap((tool: any) => (tool.toolSpec ? [tool.toolSpec.name] : [])),
  },
];

let directory: string;
let mcpConfig: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'switchboard-claude-code-mcp-'));
  const server = join(directory, 'weather-mcp-server.mjs');
  writeFileSync(server, MCP_SERVER_SOURCE);
  mcpConfig = join(directory, 'mcp.json');
  writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { [SERVER]: { command: process.execPath, args: [server] } } }));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe.each(VENDORS)('Claude Code with a long-named MCP tool on $vendor', (vendor) => {
  let target: ClaudeCodeTarget;
  beforeAll(async () => {
    target = await startClaudeCodeTarget({ startUpstream: vendor.startUpstream, providerYaml: vendor.providerYaml });
  });
  afterAll(() => target?.close());

  it('calls the tool under a stand-in name and the CLI runs it under its own', async () => {
    resetTarget(target);
    const standIn = vendorToolName(CLI_NAME);
    target.upstream.enqueue(
      vendor.step({ calls: [{ name: 'ToolSearch', input: { query: `select:${CLI_NAME}`, max_results: 1 } }], usage: USAGE }),
      vendor.step({ calls: [{ name: standIn, input: { city: 'Paris' } }], usage: USAGE }),
      vendor.step({ text: ANSWER, usage: USAGE }),
    );
    const outcome = await runAgainst(target, {
      prompt: 'What is the weather in Paris?',
      model: vendor.model,
      variable: 'ANTHROPIC_AUTH_TOKEN',
      allowedTools: [CLI_NAME],
      extraArgs: ['--mcp-config', mcpConfig, '--strict-mcp-config'],
      timeoutMs: 60_000,
    });
    expectAnswer(outcome, target, ANSWER);
    const context = describeRun(outcome, target);

    const [, loaded] = messageCalls(target, 3);
    expect((loaded?.body as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name), context).toContain(CLI_NAME);
    // The CLI ran the MCP tool it knows by its own name.
    const uses = outcome.events.flatMap((event: any) => (event.type === 'assistant' ? event.message.content : [])).filter((block: any) => block.type === 'tool_use');
    expect(uses.map((block: any) => block.name), context).toEqual(['ToolSearch', CLI_NAME]);
    expect(uses[1], context).toMatchObject({ input: { city: 'Paris' } });
    const [first, second, third] = target.upstream.requests.map((sent) => ({ names: vendor.toolNames(sent.body), raw: sent.rawBody }));
    for (const sent of [first, second, third]) {
      expect(sent?.names.filter((name) => !/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(name)), context).toEqual([]);
      // The long name is in the CLI's prose (its list of deferred tools), never as a function's name.
      expect(sent?.raw, context).not.toContain(`"name":"${CLI_NAME}"`);
    }
    expect(second?.names, context).toContain(standIn);
    // The tool search's answer names the function the vendor was given.
    expect(second?.raw, context).toContain(JSON.stringify(toolReferenceText(standIn)).slice(1, -1));
    // The third turn carries the call and the MCP server's answer under the stand-in.
    expect(third?.raw, context).toContain(FORECAST);
    expect(third?.raw, context).toContain(standIn);
    expect(standIn).toHaveLength(64);
    expect(standIn.startsWith('mcp__weather-forecast-service__look_up_the_daily')).toBe(true);
  });
});
