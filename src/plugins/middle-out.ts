/**
 * "Middle-out" compression of a conversation: whole messages are removed from the middle outwards until the
 * prompt's estimate fits a budget. The head (everything up to and including the first user turn, so the
 * leading system messages too), the most recent turn and the latest user prompt are always kept, and a
 * `tool_use` is never separated from its `tool_result`: messages linked by a tool call form one unit, removed
 * together or not at all.
 * Pure: the token estimate is the gateway's one estimator, in context-window terms (earlier turns' thinking
 * not counted), as the context check's.
 */
import type { MessageParam, MessageRequest } from '#src/api-types.ts';
import { contextTokensPerMessage, estimateInputTokens } from '#src/request/estimate-input-tokens.ts';
import { contentBlocks } from '#src/request/message-content.ts';
import { holdsUserWords } from '#src/request/user-words.ts';

/** A run of messages that must stay or go together: `[start, end]`, both inclusive. */
export interface MessageUnit {
  start: number;
  end: number;
}

/** What the compression kept. */
export interface MiddleOutResult {
  messages: MessageParam[];
  removed: number;
  /** The estimate the removal worked with (per-message estimates summed, never below the whole's). */
  estimatedTokens: number;
}

function toolUseIds(message: MessageParam): string[] {
  return contentBlocks(message).flatMap((block) => (block.type === 'tool_use' && 'id' in block && typeof block.id === 'string' ? [block.id] : []));
}

function toolResultIds(message: MessageParam): string[] {
  return contentBlocks(message).flatMap((block) => (block.type === 'tool_result' && 'tool_use_id' in block && typeof block.tool_use_id === 'string' ? [block.tool_use_id] : []));
}

/** The conversation cut into units: single messages, or the run from a `tool_use` to its last `tool_result`. */
export function messageUnits(messages: readonly MessageParam[]): MessageUnit[] {
  const owner = new Map<string, number>();
  // reach[i]: the furthest message a call made in message i (or in a message linked to it) is answered in.
  const reach = messages.map((_, index) => index);
  messages.forEach((message, index) => {
    for (const id of toolResultIds(message)) {
      const from = owner.get(id);
      if (from !== undefined && from < index) reach[from] = Math.max(reach[from] as number, index);
    }
    for (const id of toolUseIds(message)) owner.set(id, index);
  });
  const units: MessageUnit[] = [];
  let start = 0;
  let end = -1;
  reach.forEach((furthest, index) => {
    if (index > end && end >= start) {
      units.push({ start, end });
      start = index;
    }
    end = Math.max(end, furthest);
  });
  if (messages.length > 0) units.push({ start, end });
  return units;
}

/** The index of the unit holding the first user turn (the head ends with it); 0 when there is none. */
function headEnd(messages: readonly MessageParam[], units: readonly MessageUnit[]): number {
  const firstUser = messages.findIndex((message) => message.role === 'user');
  if (firstUser < 0) return 0;
  return units.findIndex((unit) => unit.start <= firstUser && firstUser <= unit.end);
}

/**
 * The index of the unit holding the latest user prompt (the last user message holding the user's words, not
 * tool results and `<system-reminder>` notes alone); -1 when there is none. An agent's tool turns or an assistant prefill come after it, so the last
 * unit alone would not hold the question they serve.
 */
function promptUnit(messages: readonly MessageParam[], units: readonly MessageUnit[]): number {
  const prompt = messages.findLastIndex(holdsUserWords);
  return prompt < 0 ? -1 : units.findIndex((unit) => unit.start <= prompt && prompt <= unit.end);
}

/** Units to remove in order: the middle one of the removable range first, then outwards, older side first. */
export function middleOutOrder(first: number, last: number): number[] {
  if (last < first) return [];
  const middle = Math.floor((first + last) / 2);
  const order = [middle];
  for (let step = 1; order.length < last - first + 1; step += 1) {
    if (middle - step >= first) order.push(middle - step);
    if (middle + step <= last) order.push(middle + step);
  }
  return order;
}

/**
 * Removes units from the middle outwards until the estimate is at most `budget`, or until only the head and the
 * last unit are left (the result may then still exceed the budget: the caller decides).
 */
export function compressMiddleOut(request: Pick<MessageRequest, 'system' | 'messages' | 'tools'>, budget: number): MiddleOutResult {
  const { messages } = request;
  const fixed = estimateInputTokens({ system: request.system, tools: request.tools, messages: [] });
  // Counted as the context check counts them (earlier turns' thinking left out), or more would go than needed.
  const perMessage = contextTokensPerMessage(messages);
  let total = fixed + perMessage.reduce((sum, tokens) => sum + tokens, 0);
  const units = messageUnits(messages);
  const removedUnits = new Set<number>();
  const prompt = promptUnit(messages, units);
  for (const unit of middleOutOrder(headEnd(messages, units) + 1, units.length - 2)) {
    if (total <= budget) break;
    if (unit === prompt) continue;
    const { start, end } = units[unit] as MessageUnit;
    for (let index = start; index <= end; index += 1) total -= perMessage[index] as number;
    removedUnits.add(unit);
  }
  if (removedUnits.size === 0) return { messages: [...messages], removed: 0, estimatedTokens: total };
  const kept = units.flatMap((unit, index) => (removedUnits.has(index) ? [] : messages.slice(unit.start, unit.end + 1)));
  return { messages: kept, removed: messages.length - kept.length, estimatedTokens: total };
}
