/**
 * Decides where prompt-cache breakpoints go, in Anthropic's terms, before any vendor conversion. Block-level
 * `cache_control` markers are honoured where they stand; a top-level `cache_control` adds one breakpoint on
 * the last cacheable block of the request, system messages inside the conversation included. Anthropic allows
 * at most four breakpoints: more explicit markers than that is the client's error (400, as Anthropic answers,
 * refused by the planner before any call); an automatic breakpoint that would be the fifth is left out with a
 * warning.
 */
import type { CacheControl, MessageRequest } from '#src/api-types.ts';
import { MAX_CACHE_BREAKPOINTS, assertCacheBreakpointLimit, isCacheableBlock } from '#src/request/cache-breakpoint-count.ts';
import { contentBlocks, stringContent } from '#src/request/message-content.ts';

/** Anything that can carry a breakpoint: a system block, a tool, a content block, or a string-content message. */
export type CacheAnchor = object;

/** Where the breakpoints fall, keyed by the request's own objects (never copies). */
export interface CacheBreakpointPlan {
  /** Each anchored object with its marker. */
  breakpoints: Map<CacheAnchor, CacheControl>;
  warnings: string[];
}

function markerOf(value: unknown): CacheControl | undefined {
  if (typeof value !== 'object' || value === null || !('cache_control' in value)) return undefined;
  const marker = (value as { cache_control?: CacheControl | null }).cache_control;
  return marker ?? undefined;
}

/** Finds every breakpoint of a request (explicit markers first, then the automatic one). */
export function planCacheBreakpoints(request: Pick<MessageRequest, 'system' | 'tools' | 'messages' | 'cache_control'>): CacheBreakpointPlan {
  const breakpoints = new Map<CacheAnchor, CacheControl>();
  const warnings: string[] = [];
  let explicit = 0;
  const visit = (anchor: object): void => {
    const marker = markerOf(anchor);
    if (marker) {
      breakpoints.set(anchor, marker);
      explicit += 1;
    }
    // Blocks inside a tool result carry their own markers and count toward the limit; vendors place cache
    // points per tool result, so such a marker anchors on the enclosing tool_result.
    const nested = (anchor as { type?: unknown; content?: unknown }).type === 'tool_result' ? (anchor as { content?: unknown }).content : undefined;
    if (!Array.isArray(nested)) return;
    for (const inner of nested) {
      const innerMarker = markerOf(inner);
      if (!innerMarker) continue;
      explicit += 1;
      if (!breakpoints.has(anchor)) breakpoints.set(anchor, innerMarker);
    }
  };
  for (const tool of request.tools ?? []) visit(tool);
  if (Array.isArray(request.system)) request.system.forEach(visit);
  for (const message of request.messages) contentBlocks(message).forEach(visit);
  if (explicit > MAX_CACHE_BREAKPOINTS) assertCacheBreakpointLimit(request);
  if (request.cache_control) {
    const last = lastCacheableAnchor(request);
    if (last && !breakpoints.has(last)) {
      if (explicit < MAX_CACHE_BREAKPOINTS) breakpoints.set(last, request.cache_control);
      else warnings.push('top-level cache_control ignored: the request already has 4 cache breakpoints');
    }
  }
  return { breakpoints, warnings };
}

function lastCacheableAnchor(request: Pick<MessageRequest, 'system' | 'messages'>): CacheAnchor | undefined {
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index];
    if (!message) continue;
    if (stringContent(message) !== undefined) return message;
    const block = findLast(contentBlocks(message), isCacheableBlock);
    if (block) return block;
  }
  if (Array.isArray(request.system)) return findLast(request.system, (block) => block.type === 'text');
  return undefined;
}

function findLast<T extends { type: string }>(blocks: readonly T[], predicate: (block: T) => boolean): T | undefined {
  for (let index = blocks.length - 1; index >= 0; index -= 1) {
    const block = blocks[index];
    if (block && predicate(block)) return block;
  }
  return undefined;
}
