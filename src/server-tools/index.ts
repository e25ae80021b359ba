/**
 * The gateway's own tools (`gateway:web_search`, `gateway:web_fetch`, `gateway:datetime`, `gateway:mcp`): what
 * the server-tool loop calls. In order: `validateGatewayTools` (400s), `resolveGatewayTools` (MCP expansion),
 * `modelToolDefinition` for each tool offered upstream, `newGatewayToolUseId`, `clientToolUseBlock` and
 * `executeGatewayTools` for the calls of a step, `modelToolResultBlock` for the next turn,
 * `mapSearchResultCitation` for Anthropic's citations, `addServerToolUsage` for the usage sums, and
 * `convertToModelToolTurns` for a conversation the client passes back.
 */
export { validateGatewayTools, hasGatewayTools, isGatewayToolEntry, type ValidatedGatewayTools, type McpToolRequest } from './validate-gateway-tools.ts';
export { resolveGatewayTools, type ResolvedGatewayTools } from './resolve-gateway-tools.ts';
export { executeGatewayTool, executeGatewayTools, modelToolDefinition, BUILT_IN_TOOLS, GATEWAY_TOOL_TYPES } from './gateway-tool-registry.ts';
export { clientToolUseBlock, modelToolResultBlock, addServerToolUsage, errorOutcome } from './tool-outcome.ts';
export { newGatewayToolUseId, isGatewayToolUseId } from './gateway-tool-use-id.ts';
export { convertToModelToolTurns, modelToolResultFromBlock, withoutGatewayCitations, type ModelTurnOptions } from './convert-to-model-tool-turns.ts';
export { defaultMcpPrefix } from './mcp/mcp-tool.ts';
export { mapSearchResultCitation, isGatewayCitation, type WebSearchResultLocationCitation } from './map-search-result-citation.ts';
export { createServerToolRuntime, type ServerToolRuntime, type ServerToolRuntimeOptions } from './server-tool-runtime.ts';
export { DEFAULT_SERVER_TOOLS_CONFIG, type ServerToolsConfig, type WebSearchConfig, type WebFetchConfig, type McpServerConfig } from './server-tools-config.ts';
export type * from './server-tool-types.ts';
