/**
 * The request fields that belong to the gateway, not to Anthropic's Messages format: the router reads them,
 * and no upstream ever receives them.
 */

/** Fields of the request that only the gateway understands. */
export const GATEWAY_ONLY_FIELDS = [
  'fallbacks',
  'models',
  'provider',
  'plugins',
  'route',
  'session_id',
  'speed',
  'stop_server_tools_when',
  'max_tool_calls',
  'trace',
  'user',
  'cache_control',
] as const;
