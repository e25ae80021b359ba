/**
 * Readies a request's server-side tool loop, as plain data: the rules first (400s naming the field, before
 * anything is planned or called), then, once the request is planned, the MCP servers' tool lists, giving the
 * tools the model is offered (each gateway entry replaced in place by its function tools) and the tools the
 * gateway runs, by model-facing name.
 */
import type { MessageRequest, ToolDefinition } from '#src/api-types.ts';
import type { KnownStopCondition as StopCondition } from '#src/request/stop-conditions.ts';
import { BadRequestError } from '#src/errors.ts';
import {
  isGatewayToolEntry,
  modelToolDefinition,
  resolveGatewayTools,
  validateGatewayTools,
  type ResolvedGatewayTool,
  type ServerToolRuntime,
  type ServerToolsConfig,
  type ValidatedGatewayTools,
} from '#src/server-tools/index.ts';
import { readLoopLimits, type LoopLimits } from './loop-limits.ts';
import type { ApiFamily } from '#src/providers/provider-adapter.ts';
import { anthropicEntryOf } from '#src/server-tools/web-search/anthropic-web-search.ts';

/** What the loop needs of the gateway's tools: their configuration and the runtime they share. */
export interface ServerToolsDeps {
  config: ServerToolsConfig;
  runtime: ServerToolRuntime;
  /** How often a streamed loop sends a `ping` while a step's gateway tools run (`SWITCHBOARD_TOOL_LOOP_PING_MS`). */
  pingMs?: number;
}

/** A request whose gateway tools and loop limits passed the rules. */
export interface CheckedToolLoop {
  validated: ValidatedGatewayTools;
  limits: LoopLimits;
}

/** The loop of one request, ready to run. */
export interface ToolLoopSetup {
  /** The gateway tools offered, by model-facing name. */
  tools: ReadonlyMap<string, ResolvedGatewayTool>;
  /** The request's `tools` as the model is offered them: every gateway entry replaced by its function tools. */
  definitions: ToolDefinition[];
  /**
   * The tools as an Anthropic-format attempt is offered them, when they differ: Anthropic's web search run by
   * the gateway for the plan's translated endpoints goes to an Anthropic one as the client sent it, so that
   * endpoint runs its own search (`definitionsFor`).
   */
  anthropicDefinitions?: ToolDefinition[];
  /** Each requested MCP server's name prefix, to turn a passed-back `mcp_tool_use` into the name offered. */
  mcpPrefixes: ReadonlyMap<string, string>;
  limits: LoopLimits;
}

type ToolEntry = NonNullable<MessageRequest['tools']>[number];

function conditionError(index: number, message: string): BadRequestError {
  const path = `stop_server_tools_when[${index}].tool_name`;
  return new BadRequestError(`${path}: ${message}`, { details: [{ path: `/body/stop_server_tools_when/${index}/tool_name`, message }] });
}

/** A `has_tool_call` must name a tool the request offers: a client tool, a built-in gateway tool or an MCP server's. */
function checkConditionToolNames(conditions: readonly StopCondition[], validated: ValidatedGatewayTools): void {
  conditions.forEach((condition, index) => {
    if (condition.type !== 'has_tool_call') return;
    const name = condition.tool_name;
    if (validated.takenNames.has(name)) return;
    if (validated.mcp.some((request) => name.startsWith(`${request.prefix}__`))) return;
    throw conditionError(index, `no tool of the request is named ${JSON.stringify(name)} (use the model-facing name, e.g. web_search or mcp__<server>__<tool>)`);
  });
}

/** Checks the request's gateway tools and stop conditions against the rules and the configuration (400s). */
export function checkToolLoop(request: MessageRequest, config: ServerToolsConfig): CheckedToolLoop {
  const validated = validateGatewayTools(request.tools, config);
  const limits = readLoopLimits(request);
  checkConditionToolNames(limits.conditions, validated);
  return { validated, limits };
}

/** The tools an attempt of this API family is offered. */
export function definitionsFor(setup: Pick<ToolLoopSetup, 'definitions' | 'anthropicDefinitions'>, family: ApiFamily): ToolDefinition[] {
  return family === 'anthropic' && setup.anthropicDefinitions ? setup.anthropicDefinitions : setup.definitions;
}

/**
 * The tools offered: each gateway entry replaced by its function tools, or, `native`, a converted Anthropic
 * web search entry by the entry the client sent.
 */
function definitionsOf(entries: readonly ToolEntry[], resolved: readonly ResolvedGatewayTool[], native = false): ToolDefinition[] {
  const builtIn = resolved.filter((tool) => tool.kind !== 'mcp');
  let position = 0;
  const definitions: ToolDefinition[] = [];
  for (const entry of entries) {
    if (!isGatewayToolEntry(entry)) definitions.push(entry);
    else if ((entry as { type: string }).type === 'gateway:mcp') {
      const server = (entry as { server: string }).server;
      for (const tool of resolved) if (tool.kind === 'mcp' && tool.settings.server === server) definitions.push(modelToolDefinition(tool));
    } else {
      const tool = builtIn[position++];
      const sent = native ? anthropicEntryOf(entry) : undefined;
      if (sent) definitions.push(sent as ToolDefinition);
      else if (tool) definitions.push(modelToolDefinition(tool));
    }
  }
  return definitions;
}

/** Lists the MCP servers' tools (through the runtime's cache) and readies the loop; never throws for a server that is down. */
export async function prepareToolLoop(
  request: MessageRequest,
  checked: CheckedToolLoop,
  runtime: Pick<ServerToolRuntime, 'mcp'>,
): Promise<{ setup: ToolLoopSetup; warnings: string[] }> {
  const resolved = await resolveGatewayTools(checked.validated, runtime);
  const definitions = definitionsOf(request.tools ?? [], resolved.tools);
  const converted = (request.tools ?? []).some((entry) => anthropicEntryOf(entry) !== undefined);
  const anthropicDefinitions = converted ? definitionsOf(request.tools ?? [], resolved.tools, true) : undefined;
  const setup: ToolLoopSetup = {
    tools: new Map(resolved.tools.map((tool) => [tool.modelName, tool])),
    definitions,
    ...(anthropicDefinitions ? { anthropicDefinitions } : {}),
    mcpPrefixes: new Map(checked.validated.mcp.map((entry) => [entry.server, entry.prefix])),
    limits: checked.limits,
  };
  return { setup, warnings: resolved.warnings };
}
