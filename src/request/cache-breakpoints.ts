/**
 * Anthropic's prompt-cache breakpoint rule, in one place for every path: the planner refuses a request that
 * breaks it before any call, places the top-level `cache_control` for Anthropic-format upstreams, and the AI
 * SDK translator reads the same plan to put each vendor's native marker (Bedrock cache points).
 *
 * The rule, as Anthropic documents it (build-with-claude/prompt-caching, "What can be cached" and automatic
 * caching's edge cases):
 * - Cacheable: tools, system blocks, and message blocks of type text (not empty), image, document, tool_use,
 *   tool_result, search_result, server_tool_use and server tool results. Thinking and redacted thinking
 *   blocks cannot carry a marker; neither can a block type the gateway does not know (it may not take one).
 * - At most 4 breakpoints: markers on tools, system blocks, the blocks of every message (system messages and
 *   unknown roles included) and blocks inside tool results, search results and content documents all count.
 *   A fifth is a 400.
 * - The top-level `cache_control` is one breakpoint on the last cacheable block in prefix order (tools, then
 *   system, then messages), walking back past blocks that cannot carry one; string content (a message's, or a
 *   string `system`) becomes one marked text block. When that block already carries a marker of the same
 *   lifetime nothing is added; another lifetime is a 400; so is a request whose 4 breakpoints are all taken
 *   (there is never a fifth). When nothing is cacheable, nothing is added.
 */
import type { CacheControl, ContentBlockParam, MessageParam, MessageRequest, TextBlockParam } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { contentBlocks, isKnownRole, stringContent } from '#src/request/message-content.ts';

/** Anthropic's limit on cache breakpoints per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** The request fields the rule reads. */
export type CacheFields = Pick<MessageRequest, 'tools' | 'system' | 'messages'> & { cache_control?: MessageRequest['cache_control'] };

/** Where the breakpoints of a request fall, keyed by the request's own objects (never copies). */
export interface CacheBreakpointPlan {
  /**
   * Each anchor with its marker: a tool, a system or message block (a marker inside a tool result, a search
   * result or a content document anchors on that block, where vendors put their cache point), a
   * string-content message, or the request itself for a string `system`, where the top-level marker lands.
   */
  breakpoints: Map<object, CacheControl>;
}

/** Where the top-level marker lands: a tool, a system or message block, or string content (no `block`). */
interface BreakpointTarget {
  field: 'tools' | 'system' | 'messages';
  message?: number;
  block?: number;
  anchor: object;
}

const CACHEABLE = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'search_result', 'server_tool_use']);

/** Whether a block may carry a breakpoint (see the module comment for the list). */
export function isCacheableBlock(block: { type: string }): boolean {
  if (block.type === 'text') return (block as { text?: unknown }).text !== '';
  return CACHEABLE.has(block.type) || block.type.endsWith('_tool_result');
}

function markerOf(value: unknown): CacheControl | undefined {
  if (typeof value !== 'object' || value === null || !('cache_control' in value)) return undefined;
  return (value as { cache_control?: CacheControl | null }).cache_control ?? undefined;
}

/**
 * The blocks a block holds: a tool result's content, a search result's texts, a content document's blocks.
 * Their markers count, and anchor on the message's block, where the translators' parts end.
 */
function nestedBlocks(block: object): readonly unknown[] | undefined {
  const type = (block as { type?: unknown }).type;
  let content: unknown;
  if (type === 'tool_result' || type === 'search_result') content = (block as { content?: unknown }).content;
  else if (type === 'document') {
    const source = (block as { source?: unknown }).source;
    if (typeof source === 'object' && source !== null && (source as { type?: unknown }).type === 'content') content = (source as { content?: unknown }).content;
  }
  return Array.isArray(content) ? content : undefined;
}

/** Visits every marker inside `block`, at any depth, with `anchor`. */
function forEachNestedMarker(block: object, anchor: object, visit: (anchor: object, marker: CacheControl) => void): void {
  // Every block of every request passes here: most hold nothing, and cost no allocation.
  const nested = nestedBlocks(block);
  if (nested === undefined) return;
  for (const inner of nested) {
    if (typeof inner !== 'object' || inner === null) continue;
    const marker = markerOf(inner);
    if (marker) visit(anchor, marker);
    forEachNestedMarker(inner, anchor, visit);
  }
}

/** Visits every explicit marker of a request with the object it anchors on. */
function forEachMarker(request: CacheFields, visit: (anchor: object, marker: CacheControl) => void): void {
  const visitOne = (anchor: object): void => {
    const marker = markerOf(anchor);
    if (marker) visit(anchor, marker);
  };
  for (const tool of request.tools ?? []) visitOne(tool);
  if (Array.isArray(request.system)) request.system.forEach(visitOne);
  for (const message of request.messages) {
    for (const block of contentBlocks(message)) {
      visitOne(block);
      forEachNestedMarker(block, block, visit);
    }
  }
}

/** Counts the explicit breakpoints of a request, wherever they are. */
export function countCacheBreakpoints(request: CacheFields): number {
  let count = 0;
  forEachMarker(request, () => (count += 1));
  return count;
}

function lastCacheable(blocks: readonly { type: string }[]): number {
  for (let index = blocks.length - 1; index >= 0; index -= 1) {
    const block = blocks[index];
    if (block && isCacheableBlock(block)) return index;
  }
  return -1;
}

function isGatewayTool(tool: object): boolean {
  const type = (tool as { type?: unknown }).type;
  return typeof type === 'string' && type.startsWith('gateway:');
}

/** The last cacheable place of the request, walking back from its last message to its first tool. */
function lastCacheableTarget(request: CacheFields): BreakpointTarget | undefined {
  for (let index = request.messages.length - 1; index >= 0; index -= 1) {
    const message = request.messages[index] as MessageParam;
    if (!isKnownRole(message)) continue;
    const text = stringContent(message);
    if (text !== undefined) {
      if (text !== '') return { field: 'messages', message: index, anchor: message };
      continue;
    }
    const blocks = contentBlocks(message);
    const block = lastCacheable(blocks);
    if (block >= 0) return { field: 'messages', message: index, block, anchor: blocks[block] as object };
  }
  const system = request.system;
  if (typeof system === 'string' && system !== '') return { field: 'system', anchor: request };
  if (Array.isArray(system)) {
    const block = lastCacheable(system);
    if (block >= 0) return { field: 'system', block, anchor: system[block] as object };
  }
  const tools = request.tools ?? [];
  for (let index = tools.length - 1; index >= 0; index -= 1) {
    const tool = tools[index] as object;
    if (!isGatewayTool(tool)) return { field: 'tools', block: index, anchor: tool };
  }
  return undefined;
}

function where(target: BreakpointTarget): string {
  if (target.field === 'messages') return `messages[${target.message}].content${target.block === undefined ? '' : `[${target.block}]`}`;
  return target.block === undefined ? target.field : `${target.field}[${target.block}]`;
}

const lifetimeOf = (marker: CacheControl): string => marker.ttl ?? '5m';

function tooMany(count: number): BadRequestError {
  return new BadRequestError(`at most ${MAX_CACHE_BREAKPOINTS} blocks may carry cache_control, found ${count}`);
}

/** Where the top-level marker goes; undefined when it adds nothing. Throws the 400s of the rule. */
function topLevelTarget(request: CacheFields, marker: CacheControl, explicit: number): BreakpointTarget | undefined {
  const target = lastCacheableTarget(request);
  if (!target) return undefined;
  const existing = target.block === undefined ? undefined : markerOf(target.anchor);
  if (existing) {
    if (lifetimeOf(existing) === lifetimeOf(marker)) return undefined;
    throw new BadRequestError(
      `the top-level cache_control (ttl ${lifetimeOf(marker)}) lands on ${where(target)}, which already carries cache_control with ttl ${lifetimeOf(existing)}`,
    );
  }
  if (explicit >= MAX_CACHE_BREAKPOINTS) {
    throw new BadRequestError(`the top-level cache_control needs a cache breakpoint of its own, and the request's ${explicit} cache_control markers take all ${MAX_CACHE_BREAKPOINTS}`);
  }
  return target;
}

/** Refuses a request that breaks the rule (a fifth breakpoint, a top-level marker that cannot land), before any call. */
export function assertCacheBreakpointLimit(request: CacheFields): void {
  const count = countCacheBreakpoints(request);
  if (count > MAX_CACHE_BREAKPOINTS) throw tooMany(count);
  if (request.cache_control) topLevelTarget(request, request.cache_control, count);
}

/** Finds every breakpoint of a request: the explicit markers, and where the top-level one lands. */
export function planCacheBreakpoints(request: CacheFields): CacheBreakpointPlan {
  const breakpoints = new Map<object, CacheControl>();
  let explicit = 0;
  forEachMarker(request, (anchor, marker) => {
    explicit += 1;
    if (!breakpoints.has(anchor)) breakpoints.set(anchor, marker);
  });
  if (explicit > MAX_CACHE_BREAKPOINTS) throw tooMany(explicit);
  const marker = request.cache_control;
  const target = marker ? topLevelTarget(request, marker, explicit) : undefined;
  if (marker && target) breakpoints.set(target.anchor, marker);
  return { breakpoints };
}

function markedText(text: string, marker: CacheControl): TextBlockParam {
  return { type: 'text', text, cache_control: marker };
}

function replaced<T>(items: readonly T[], index: number, item: T): T[] {
  const copy = items.slice();
  copy[index] = item;
  return copy;
}

/**
 * Returns the request with the top-level `cache_control` written as a block marker where the rule puts it,
 * and the field removed, so every vendor sees ordinary block markers. The input is not modified; a request
 * without the field is returned as is. Throws the rule's 400s.
 */
export function placeTopLevelCacheBreakpoint<T extends CacheFields>(request: T): Omit<T, 'cache_control'> {
  const marker = request.cache_control;
  if (!marker) return request;
  const { cache_control: _removed, ...prepared } = request;
  const target = topLevelTarget(request, marker, countCacheBreakpoints(request));
  if (!target) return prepared;
  const withMarker = <B extends object>(block: B): B => ({ ...block, cache_control: marker });
  switch (target.field) {
    case 'messages': {
      const message = request.messages[target.message as number] as MessageParam;
      const content =
        target.block === undefined ? [markedText(stringContent(message) ?? '', marker)] : replaced(contentBlocks(message), target.block, withMarker(target.anchor) as ContentBlockParam);
      return { ...prepared, messages: replaced(request.messages, target.message as number, { ...message, content } as MessageParam) };
    }
    case 'system': {
      const system = request.system;
      const blocks = typeof system === 'string' ? [markedText(system, marker)] : replaced(system ?? [], target.block as number, withMarker(target.anchor) as TextBlockParam);
      return { ...prepared, system: blocks };
    }
    case 'tools':
      return { ...prepared, tools: replaced(request.tools ?? [], target.block as number, withMarker(target.anchor) as NonNullable<T['tools']>[number]) };
    default: {
      const unreachable: never = target.field;
      throw new Error(`unknown breakpoint field ${String(unreachable)}`);
    }
  }
}
