/**
 * A `tool_choice` of type `tool` must name a tool the request offers. Every vendor refuses a forced call to a
 * tool it was not given (Anthropic's API and OpenAI's with a 400, Gemini's and Bedrock's too), except where the
 * AI SDK drops `tool_choice` with no tools at all, which silently answers without the forced call. So the
 * gateway answers the mistake itself, before any upstream call, in one wording for every provider; so too
 * `any` (a call to some tool) with no tools at all, which Anthropic and OpenAI refuse and the AI SDK drops.
 *
 * Checked strictly only where the gateway knows every name the request offers: a client or Anthropic tool's
 * `name`, a built-in gateway tool's name (its default when it sets none), and `<prefix>__<tool>` of a
 * `gateway:mcp` entry (whose tools the gateway lists only later). A tool entry without a name whose type the
 * gateway does not know (Anthropic's `mcp_toolset`, a type Anthropic adds tomorrow) or Anthropic's
 * `mcp_servers` may offer names the gateway cannot see: then the choice is left to the upstream.
 */
import type { MessageRequest } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { BUILT_IN_TOOLS } from '#src/server-tools/gateway-tool-registry.ts';
import { defaultMcpPrefix } from '#src/server-tools/mcp/mcp-tool.ts';

// How many of the request's tool names a message lists before it says how many more there are.
const LISTED_NAMES = 10;

type ToolEntry = { type?: unknown; name?: unknown; server?: unknown };

/** What the request offers by name: the names, the MCP prefixes, and whether some names are unknowable. */
interface OfferedNames {
  names: string[];
  mcpPrefixes: string[];
  open: boolean;
}

function builtInDefaultName(type: string): string | undefined {
  return Object.values(BUILT_IN_TOOLS).find((tool) => tool.requestType === type)?.defaultName;
}

function offeredNames(tools: readonly ToolEntry[]): OfferedNames {
  const offered: OfferedNames = { names: [], mcpPrefixes: [], open: false };
  for (const tool of tools) {
    const type = typeof tool.type === 'string' ? tool.type : undefined;
    if (type === 'gateway:mcp') {
      offered.mcpPrefixes.push(typeof tool.name === 'string' ? tool.name : defaultMcpPrefix(String(tool.server)));
    } else if (typeof tool.name === 'string') {
      offered.names.push(tool.name);
    } else {
      const name = type === undefined ? undefined : builtInDefaultName(type);
      if (name === undefined) offered.open = true;
      else offered.names.push(name);
    }
  }
  return offered;
}

function listed(names: readonly string[]): string {
  if (names.length === 0) return 'the request offers no tools';
  const shown = names.slice(0, LISTED_NAMES).join(', ');
  return `the request's tools are ${shown}${names.length > LISTED_NAMES ? ` and ${names.length - LISTED_NAMES} more` : ''}`;
}

/**
 * Throws a 400 naming `tool_choice.name` when the choice forces a tool the request certainly does not offer.
 * @see ToolChoice in openapi/components/schemas/tool-definitions.yaml
 */
export function checkToolChoiceTarget(request: Pick<MessageRequest, 'tools' | 'tool_choice'>): void {
  const choice = request.tool_choice as { type?: unknown; name?: unknown } | undefined;
  if (choice?.type !== 'tool' && choice?.type !== 'any') return;
  if ((request as { mcp_servers?: unknown }).mcp_servers !== undefined) return;
  const tools = (request.tools ?? []) as readonly ToolEntry[];
  if (choice.type === 'any') {
    if (tools.length > 0) return;
    const problem = 'is any, which forces a tool call, but the request offers no tools (add tools, or leave tool_choice out)';
    throw new BadRequestError(`tool_choice.type ${problem}`, { details: [{ path: '/body/tool_choice/type', message: problem }] });
  }
  if (typeof choice.name !== 'string') return;
  const name = choice.name;
  const offered = offeredNames(tools);
  if (offered.open || offered.names.includes(name) || offered.mcpPrefixes.some((prefix) => name.startsWith(`${prefix}__`))) return;
  const names = [...offered.names, ...offered.mcpPrefixes.map((prefix) => `${prefix}__<tool>`)];
  const problem = `no tool of the request is named ${JSON.stringify(name)} (${listed(names)})`;
  throw new BadRequestError(`tool_choice.name: ${problem}`, { details: [{ path: '/body/tool_choice/name', message: problem }] });
}
