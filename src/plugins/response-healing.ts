/**
 * The `response-healing` plugin on an answer. What is healed is the answer's final text: its text blocks after
 * the last tool block (the client's `tool_use`, `server_tool_use`, `mcp_tool_use`, a `*_tool_result`), so that
 * the words a model says before a tool call (before a client tool's call, the tool loop's earlier steps, an
 * Anthropic server tool's preamble) and a refused model's text before a `fallback` block are neither healed
 * nor reported as unhealable. Each final text block of a complete message is healed (see json-healing.ts). In
 * a stream, each text block is held back until it is complete and the next block that is not text starts (or
 * the message ends): held text followed by a tool or fallback block goes out as it came, any other is final text and is sent again healed, as `content_block_start` with
 * empty text, one `text_delta` with the whole text and `content_block_stop`. A block that was valid or cannot
 * be healed goes out exactly as it came. Every other event passes as it comes.
 * @see ResponseHealingPlugin in openapi/components/schemas/plugins.yaml
 */
import type { ContentBlockDeltaEvent, ContentBlockStartEvent, MessageResponse, ResponseContentBlock, ResponseHealingReport, TextBlock } from '#src/api-types.ts';
import { eventPayload, sseEventName, type SseEvent } from '#src/providers/provider-adapter.ts';
import { healJson, type HealOutcome, type SchemaCheck } from '#src/plugins/json-healing.ts';

/** The report of a request whose answer had these text blocks healed. */
export function healingReport(outcomes: readonly HealOutcome[]): ResponseHealingReport {
  const unhealable = outcomes.find((outcome) => outcome.status === 'unhealable');
  if (unhealable) return { id: 'response-healing', status: 'unhealable', note: unhealable.note };
  if (outcomes.some((outcome) => outcome.status === 'healed')) return { id: 'response-healing', status: 'healed' };
  if (outcomes.length === 0) return { id: 'response-healing', status: 'not_applicable', note: 'the answer has no final text' };
  return { id: 'response-healing', status: 'valid' };
}

/** The report when the request asks for no `json_schema` output: nothing to heal. */
export const NOT_APPLICABLE: ResponseHealingReport = { id: 'response-healing', status: 'not_applicable', note: 'the request asks for no json_schema output format' };

function isTextBlock(block: ResponseContentBlock): block is TextBlock {
  return block.type === 'text' && typeof (block as { text?: unknown }).text === 'string';
}

/**
 * A tool's call or result, the client's (`tool_use`) or a server tool's, or a `fallback` block: what the
 * answer's final text comes after. Text before a client's `tool_use` is what the model says before calling it,
 * text before a `fallback` block the refused model's: neither is the answer's structured output.
 */
function isToolBlock(type: string): boolean {
  return type === 'tool_use' || type === 'server_tool_use' || type === 'mcp_tool_use' || type === 'fallback' || type.endsWith('_tool_result');
}

/** Heals the final text blocks of a complete message (those after its last tool block). */
export function healMessage(message: MessageResponse, check: SchemaCheck): { message: MessageResponse; report: ResponseHealingReport } {
  const outcomes: HealOutcome[] = [];
  const finalFrom = message.content.findLastIndex((block) => isToolBlock(block.type)) + 1;
  const content = message.content.map((block, index) => {
    if (index < finalFrom || !isTextBlock(block)) return block;
    const outcome = healJson(block.text, check);
    outcomes.push(outcome);
    // A healed text no longer has the spans its citations pointed at.
    return outcome.status === 'healed' ? { ...block, text: outcome.text, citations: null } : block;
  });
  // Each block as its own outcome says, as a stream sends them: a healed one goes out healed even when
  // another is unhealable (the report then says unhealable).
  const healedAny = outcomes.some((outcome) => outcome.status === 'healed');
  return { message: healedAny ? { ...message, content } : message, report: healingReport(outcomes) };
}

/** A text block held back: its events as they came (an upstream's still as text), and its text so far. */
interface HeldBlock {
  index: number;
  events: SseEvent[];
  text: string;
}

/** The events of a held block as they came. */
function* asTheyCame(blocks: readonly HeldBlock[]): Generator<SseEvent> {
  for (const block of blocks) yield* block.events;
}

/** The events of held final text blocks, each healed when it needs it; their outcomes go to `outcomes`. */
function* healed(blocks: readonly HeldBlock[], check: SchemaCheck, outcomes: HealOutcome[]): Generator<SseEvent> {
  for (const block of blocks) {
    const outcome = healJson(block.text, check);
    outcomes.push(outcome);
    if (outcome.status !== 'healed') {
      yield* block.events;
      continue;
    }
    yield { type: 'content_block_start', index: block.index, content_block: { type: 'text', text: '' } };
    yield { type: 'content_block_delta', index: block.index, delta: { type: 'text_delta', text: outcome.text } };
    yield { type: 'content_block_stop', index: block.index };
  }
}

/**
 * Heals the final text blocks of a stream; `outcomes` receives each final block's outcome as it is decided,
 * so the report is whole by the time `message_stop` passes.
 */
export async function* healStream(events: AsyncIterable<SseEvent>, check: SchemaCheck, outcomes: HealOutcome[]): AsyncGenerator<SseEvent> {
  // The text block arriving, and the complete ones waiting to learn whether a tool block follows them.
  let open: HeldBlock | null = null;
  let complete: HeldBlock[] = [];
  for await (const event of events) {
    const name = sseEventName(event);
    if (open !== null) {
      const delta = name === 'content_block_delta' ? eventPayload<ContentBlockDeltaEvent>(event) : null;
      if (delta?.index === open.index) {
        if (delta.delta.type === 'text_delta') open.text += delta.delta.text;
        open.events.push(event);
        continue;
      }
      if (name === 'content_block_stop') {
        open.events.push(event);
        complete.push(open);
        open = null;
        continue;
      }
      if (name === 'ping') {
        yield event;
        continue;
      }
      // An error (or anything unexpected) inside a block: what was held goes out first, as it came.
      yield* asTheyCame([...complete, open]);
      complete = [];
      open = null;
      yield event;
      continue;
    }
    if (name === 'content_block_start') {
      const start = eventPayload<ContentBlockStartEvent>(event);
      const block = start.content_block;
      if (isTextBlock(block)) {
        open = { index: start.index, events: [event], text: block.text };
        continue;
      }
      if (complete.length > 0) yield* isToolBlock(block.type) ? asTheyCame(complete) : healed(complete, check, outcomes);
      complete = [];
      yield event;
      continue;
    }
    if (complete.length > 0 && name !== 'ping') {
      // The message ends (message_delta) or fails (error) after the held text: final text, or text as it came.
      yield* name === 'error' ? asTheyCame(complete) : healed(complete, check, outcomes);
      complete = [];
    }
    yield event;
  }
  yield* asTheyCame(open ? [...complete, open] : complete);
}
