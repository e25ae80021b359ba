/**
 * Top-level `cache_control`: the gateway places one cache breakpoint on the last cacheable block of the
 * request (Anthropic's prefix order is tools, system, messages, system messages inside the conversation
 * included) and removes the top-level field, so every vendor with explicit caching sees an ordinary
 * block-level marker. Anthropic allows four breakpoints: when the request already has four, none is added.
 */
import type { CacheControl, ContentBlockParam, MessageParam, MessageRequest, TextBlockParam } from '#src/api-types.ts';
import { MAX_CACHE_BREAKPOINTS, countCacheBreakpoints, hasMarker, isCacheableBlock } from '#src/request/cache-breakpoint-count.ts';
import { contentBlocks, isKnownRole, stringContent } from '#src/request/message-content.ts';

function markLastBlock(message: MessageParam, marker: CacheControl): MessageParam | undefined {
  if (!isKnownRole(message)) return undefined;
  const text = stringContent(message);
  if (text !== undefined) {
    if (text.length === 0) return undefined;
    const block: TextBlockParam = { type: 'text', text, cache_control: marker };
    return { ...message, content: [block] } as MessageParam;
  }
  const blocks = contentBlocks(message);
  for (let index = blocks.length - 1; index >= 0; index -= 1) {
    const block = blocks[index] as ContentBlockParam;
    if (!isCacheableBlock(block)) continue;
    if (hasMarker(block)) return message;
    const content = blocks.slice();
    content[index] = { ...block, cache_control: marker } as ContentBlockParam;
    return { ...message, content } as MessageParam;
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
  if (Array.isArray(prepared.system)) {
    const system = prepared.system.slice();
    for (let index = system.length - 1; index >= 0; index -= 1) {
      const block = system[index];
      if (block?.type !== 'text') continue;
      system[index] = { ...(block as TextBlockParam), cache_control: marker };
      return { ...prepared, system };
    }
  }
  return prepared;
}
