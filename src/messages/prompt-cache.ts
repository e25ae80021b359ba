/**
 * Top-level `cache_control`: the gateway places one cache breakpoint on the last cacheable block of the
 * request (Anthropic's prefix order is tools, system, messages) and removes the top-level field, so every
 * vendor with explicit caching sees an ordinary block-level marker. Anthropic allows four breakpoints;
 * when the request already has four, none is added.
 */
import type { CacheControl, ContentBlockParam, MessageParam, MessageRequest, TextBlockParam, ToolResultBlockParam } from '#src/api-types.ts';

/** Anthropic's limit on cache breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

// Thinking blocks cannot carry a breakpoint; every other block a client sends can.
const UNCACHEABLE = new Set(['thinking', 'redacted_thinking']);

function hasMarker(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'cache_control' in value && (value as { cache_control?: unknown }).cache_control != null;
}

// Blocks inside a tool result can carry their own breakpoints, and Anthropic counts them toward the limit.
function nestedMarkers(block: ContentBlockParam): number {
  if (block.type !== 'tool_result') return 0;
  const { content } = block as ToolResultBlockParam;
  return Array.isArray(content) ? content.filter(hasMarker).length : 0;
}

/** Counts the explicit breakpoints a request carries (tools, system blocks, message blocks and tool result content). */
export function countCacheBreakpoints(request: MessageRequest): number {
  let count = 0;
  for (const tool of request.tools ?? []) if (hasMarker(tool)) count += 1;
  if (Array.isArray(request.system)) for (const block of request.system) if (hasMarker(block)) count += 1;
  for (const message of request.messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) count += (hasMarker(block) ? 1 : 0) + nestedMarkers(block);
  }
  return count;
}

function markLastBlock(message: MessageParam, marker: CacheControl): MessageParam | undefined {
  if (typeof message.content === 'string') {
    if (message.content.length === 0) return undefined;
    const block: TextBlockParam = { type: 'text', text: message.content, cache_control: marker };
    return { ...message, content: [block] };
  }
  for (let index = message.content.length - 1; index >= 0; index -= 1) {
    const block = message.content[index] as ContentBlockParam;
    if (UNCACHEABLE.has(block.type)) continue;
    if (hasMarker(block)) return message;
    const content = message.content.slice();
    content[index] = { ...block, cache_control: marker } as ContentBlockParam;
    return { ...message, content };
  }
  return undefined;
}

/**
 * Returns the request with the top-level `cache_control` turned into a breakpoint on the last cacheable
 * block. The input is not modified; a request without the field is returned as is.
 */
export function placeTopLevelCacheBreakpoint(request: MessageRequest): MessageRequest {
  const marker = request.cache_control;
  if (!marker) return request;
  const { cache_control: _removed, ...rest } = request;
  const prepared: MessageRequest = rest;
  if (countCacheBreakpoints(prepared) >= MAX_CACHE_BREAKPOINTS) return prepared;
  for (let index = prepared.messages.length - 1; index >= 0; index -= 1) {
    const marked = markLastBlock(prepared.messages[index] as MessageParam, marker);
    if (!marked) continue;
    const messages = prepared.messages.slice();
    messages[index] = marked;
    return { ...prepared, messages };
  }
  if (Array.isArray(prepared.system) && prepared.system.length > 0) {
    const system = prepared.system.slice();
    const last = system.length - 1;
    system[last] = { ...(system[last] as TextBlockParam), cache_control: marker };
    return { ...prepared, system };
  }
  return prepared;
}
