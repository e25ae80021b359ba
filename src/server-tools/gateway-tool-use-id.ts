/**
 * Ids of the gateway's tool calls as the client sees them (`server_tool_use.id`, `mcp_tool_use.id` and the
 * result's `tool_use_id`). The prefix tells them from Anthropic's own server tool calls when a later turn
 * passes them back: only the gateway's are turned back into tool calls for the model.
 */
import { randomBytes } from 'node:crypto';

const PREFIX = 'srvtoolu_gw_';

/** A fresh id for one gateway tool call (`srvtoolu_gw_` and 16 URL-safe characters). */
export function newGatewayToolUseId(): string {
  return `${PREFIX}${randomBytes(12).toString('base64url')}`;
}

/** Whether an id is one the gateway gave a tool call. */
export function isGatewayToolUseId(id: unknown): id is string {
  return typeof id === 'string' && id.startsWith(PREFIX);
}
