/**
 * The gateway's own tools (`gateway:web_search`, `gateway:web_fetch`, `gateway:datetime`, `gateway:mcp`): what
 * the server-tool loop calls. In order: `validateGatewayTools` (400s), `resolveGatewayTools` (MCP expansion),
 * `modelToolDefinition` for each tool offered upstream, `clientToolUseBlock` and `executeGatewayTools` for the
 * calls of a step, `modelToolResultBlock` for the next turn, `addServerToolUsage` for the usage sums.
 */
export { validateGatewayTools, hasGatewayTools, isGatewayToolEntry, type ValidatedGatewayTools, type McpToolRequest } from './validate-gateway-tools.ts';
export { resolveGatewayTools, type ResolvedGatewayTools } from './resolve-gateway-tools.ts';
export { executeGatewayTool, executeGatewayTools, modelToolDefinition, BUILT_IN_TOOLS, GATEWAY_TOOL_TYPES } from './gateway-tool-registry.ts';
export { clientToolUseBlock, modelToolResultBlock, addServerToolUsage, errorOutcome } from './tool-outcome.ts';
export { createServerToolRuntime, type ServerToolRuntime, type ServerToolRuntimeOptions } from './server-tool-runtime.ts';
export { DEFAULT_SERVER_TOOLS_CONFIG, type ServerToolsConfig, type WebSearchConfig, type WebFetchConfig, type McpServerConfig } from './server-tools-config.ts';
export type * from './server-tool-types.ts';
