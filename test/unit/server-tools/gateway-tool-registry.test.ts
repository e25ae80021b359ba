import { afterAll, describe, expect, it } from 'vitest';
import { addServerToolUsage, errorOutcome, executeGatewayTool, executeGatewayTools, modelToolDefinition, type ResolvedGatewayTool, type ServerToolRuntime } from '#src/server-tools/index.ts';
import { createServerToolRuntime } from '#src/server-tools/server-tool-runtime.ts';
import { createLogger } from '#src/logger.ts';
import { checkComponentSchema } from '#test/helpers/spec-validator.ts';
import { callOf, serverToolsConfig, toolContext, toolOf } from '#test/helpers/server-tool-context.ts';
import { expectSpecBlock } from '#test/helpers/spec-blocks.ts';

const config = serverToolsConfig({ web_search: { backend: 'searxng', base_url: 'http://127.0.0.1:1' }, mcp_servers: { orders: { url: 'http://127.0.0.1:1/mcp' } } });
const runtimes: ServerToolRuntime[] = [];
afterAll(() => Promise.all(runtimes.map((runtime) => runtime.close())));

const MCP_TOOL: ResolvedGatewayTool = { kind: 'mcp', modelName: 'mcp__orders__refund', description: 'Refunds.', inputSchema: { type: 'object' }, settings: { server: 'orders', toolName: 'refund' } };

describe('executeGatewayTool never throws', () => {
  it('a tool that throws is an error result, logged', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', sink: (line) => lines.push(line) });
    const runtime = createServerToolRuntime({
      config,
      logger,
      now: () => {
        throw new Error('the clock is broken');
      },
    });
    runtimes.push(runtime);
    const call = callOf(toolOf(config, { type: 'gateway:datetime' }), {});
    const outcome = await executeGatewayTool(call, { signal: new AbortController().signal, config, logger, runtime, priorUrls: new Set() });
    expect(outcome).toMatchObject({ isError: true, modelText: 'Error (unavailable): the tool failed unexpectedly', usage: { datetime_requests: 1 } });
    expect(lines.join('\n')).toContain('the clock is broken');
  });

  it('a call made after the request was cancelled does not run', async () => {
    const controller = new AbortController();
    controller.abort();
    const { context, runtime } = toolContext(config, { signal: controller.signal });
    runtimes.push(runtime);
    const outcome = await executeGatewayTool(callOf(toolOf(config, { type: 'gateway:web_search' }), { query: 'q' }), context);
    expect(outcome.modelText).toBe('Error (unavailable): the request was cancelled before the tool ran');
  });

  it('the calls of a step run together and come back in order', async () => {
    const { context, runtime } = toolContext(config, { now: () => new Date('2026-01-01T00:00:00Z') });
    runtimes.push(runtime);
    const clock = toolOf(config, { type: 'gateway:datetime' });
    const outcomes = await executeGatewayTools([callOf(clock, { timezone: 'Asia/Tokyo' }), callOf(clock, { timezone: 'Nowhere/Else' }), callOf(clock, {})], context);
    expect(outcomes.map((outcome) => [outcome.isError, outcome.modelText.slice(0, 40)])).toEqual([
      [false, 'Current date and time in Asia/Tokyo: Thu'],
      [true, 'Error (invalid_tool_input): unknown time'],
      [false, 'Current date and time in UTC: Thursday, '],
    ]);
  });
});

describe('the shapes the loop passes on', () => {
  it.each([
    ['web_search', () => toolOf(config, { type: 'gateway:web_search' }), { type: 'web_search_tool_result_error', error_code: 'too_many_requests' }],
    ['web_fetch', () => toolOf(config, { type: 'gateway:web_fetch' }), { type: 'web_fetch_tool_result_error', error_code: 'too_many_requests' }],
    ['datetime', () => toolOf(config, { type: 'gateway:datetime' }), { type: 'datetime_tool_result_error', error_code: 'too_many_requests', message: 'slow down' }],
  ])('an error result of %s is the spec\'s', (_kind, tool, content) => {
    const outcome = errorOutcome(callOf(tool(), {}), 'too_many_requests', 'slow down');
    expect((outcome.clientResult as { content: unknown }).content).toEqual(content);
    expectSpecBlock(outcome.clientResult);
  });

  it('an MCP error result is an mcp_tool_result with is_error', () => {
    const outcome = errorOutcome(callOf(MCP_TOOL, {}), 'unavailable', 'server down');
    expect(outcome.clientResult).toEqual({ type: 'mcp_tool_result', tool_use_id: outcome.toolUseId, is_error: true, content: [{ type: 'text', text: 'server down' }] });
    expect(outcome.usage).toEqual({ mcp_requests: 1 });
    expectSpecBlock(outcome.clientResult);
  });

  it('each gateway tool is offered upstream as a client tool the spec accepts', () => {
    for (const tool of [toolOf(config, { type: 'gateway:web_search', cache_control: { type: 'ephemeral' } }), toolOf(config, { type: 'gateway:web_fetch' }), toolOf(config, { type: 'gateway:datetime', name: 'clock' }), MCP_TOOL]) {
      const definition = modelToolDefinition(tool);
      expect(definition.name).toBe(tool.modelName);
      expect(checkComponentSchema('CustomTool', definition).errors).toEqual([]);
    }
    expect(modelToolDefinition(toolOf(config, { type: 'gateway:web_search', cache_control: { type: 'ephemeral' } })).cache_control).toEqual({ type: 'ephemeral' });
  });

  it('usage.server_tool_use sums per tool', () => {
    expect(addServerToolUsage({ web_search_requests: 2, mcp_requests: 1 }, { web_search_requests: 1, datetime_requests: 3 })).toEqual({ web_search_requests: 3, mcp_requests: 1, datetime_requests: 3 });
    expect(addServerToolUsage(null, { web_fetch_requests: 1 })).toEqual({ web_fetch_requests: 1 });
    expect(addServerToolUsage(undefined, undefined)).toEqual({});
  });
});
