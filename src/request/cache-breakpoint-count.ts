/**
 * Counts the prompt-cache breakpoints a request carries, as Anthropic counts them (tools, system blocks, the
 * blocks of every message, system messages and unknown roles included, and blocks inside tool results), and
 * says which blocks may be given one. Shared by the planner, which refuses a fifth marker before any call, and
 * the translators, which place breakpoints for vendors with explicit caching.
 */
import type { ContentBlockParam, MessageRequest, ToolResultBlockParam } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { contentBlocks } from '#src/request/message-content.ts';

/** Anthropic's limit on cache breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

// The block types Anthropic lets carry a breakpoint. A block type the gateway does not know is never given
// one (it may not take it), though a marker the client put there itself counts toward the limit.
const CACHEABLE = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'search_result', 'server_tool_use']);

/** Whether the gateway may place a breakpoint on a block of this type. */
export function isCacheableBlock(block: { type: string }): boolean {
  return CACHEABLE.has(block.type) || block.type.endsWith('_tool_result');
}

/** Whether a block, tool or message carries a `cache_control` marker. */
export function hasMarker(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'cache_control' in value && (value as { cache_control?: unknown }).cache_control != null;
}

// Blocks inside a tool result can carry their own breakpoints, and Anthropic counts them toward the limit.
function nestedMarkers(block: ContentBlockParam): number {
  if (block.type !== 'tool_result') return 0;
  const { content } = block as ToolResultBlockParam;
  return Array.isArray(content) ? content.filter(hasMarker).length : 0;
}

/**
 * Counts the explicit breakpoints a request carries: tools, system blocks, the blocks of every message (system
 * messages and unknown roles included) and tool result content.
 */
export function countCacheBreakpoints(request: Pick<MessageRequest, 'tools' | 'system' | 'messages'>): number {
  let count = 0;
  for (const tool of request.tools ?? []) if (hasMarker(tool)) count += 1;
  if (Array.isArray(request.system)) for (const block of request.system) if (hasMarker(block)) count += 1;
  for (const message of request.messages) {
    for (const block of contentBlocks(message)) count += (hasMarker(block) ? 1 : 0) + nestedMarkers(block);
  }
  return count;
}

/** Refuses a request with more breakpoints than Anthropic allows, as Anthropic would, before any call. */
export function assertCacheBreakpointLimit(request: Pick<MessageRequest, 'tools' | 'system' | 'messages'>): void {
  const count = countCacheBreakpoints(request);
  if (count > MAX_CACHE_BREAKPOINTS) {
    throw new BadRequestError(`at most ${MAX_CACHE_BREAKPOINTS} blocks may carry cache_control, found ${count}`);
  }
}
