/**
 * The `response-healing` plugin on an answer: each text block of a complete message is healed (see
 * json-healing.ts); in a stream, each text block is held back until its `content_block_stop` and then sent
 * again healed, as `content_block_start` with empty text, one `text_delta` with the whole text and
 * `content_block_stop`. A block that was valid or cannot be healed goes out exactly as it came. Every other
 * event passes as it comes.
 * @see ResponseHealingPlugin in openapi/components/schemas/plugins.yaml
 */
import type { ContentBlockDeltaEvent, ContentBlockStartEvent, MessageResponse, ResponseContentBlock, ResponseHealingReport, TextBlock } from '#src/api-types.ts';
import { isRawSseEvent, sseEventName, type SseEvent } from '#src/providers/provider-adapter.ts';
import { healJson, type HealOutcome, type SchemaCheck } from '#src/plugins/json-healing.ts';

/** The report of a request whose answer had these text blocks healed. */
export function healingReport(outcomes: readonly HealOutcome[]): ResponseHealingReport {
  const unhealable = outcomes.find((outcome) => outcome.status === 'unhealable');
  if (unhealable) return { id: 'response-healing', status: 'unhealable', note: unhealable.note };
  if (outcomes.some((outcome) => outcome.status === 'healed')) return { id: 'response-healing', status: 'healed' };
  if (outcomes.length === 0) return { id: 'response-healing', status: 'not_applicable', note: 'the answer has no text' };
  return { id: 'response-healing', status: 'valid' };
}

/** The report when the request asks for no `json_schema` output: nothing to heal. */
export const NOT_APPLICABLE: ResponseHealingReport = { id: 'response-healing', status: 'not_applicable', note: 'the request asks for no json_schema output format' };

function isTextBlock(block: ResponseContentBlock): block is TextBlock {
  return block.type === 'text' && typeof (block as { text?: unknown }).text === 'string';
}

/** Heals the text blocks of a complete message. */
export function healMessage(message: MessageResponse, check: SchemaCheck): { message: MessageResponse; report: ResponseHealingReport } {
  const outcomes: HealOutcome[] = [];
  const content = message.content.map((block) => {
    if (!isTextBlock(block)) return block;
    const outcome = healJson(block.text, check);
    outcomes.push(outcome);
    // A healed text no longer has the spans its citations pointed at.
    return outcome.status === 'healed' ? { ...block, text: outcome.text, citations: null } : block;
  });
  const report = healingReport(outcomes);
  return { message: report.status === 'healed' ? { ...message, content } : message, report };
}

function typed<T>(event: SseEvent): T {
  return (isRawSseEvent(event) ? JSON.parse(event.data) : event) as T;
}

/** A text block held back: its events as they came (an upstream's still as text), and its text so far. */
interface HeldBlock {
  index: number;
  events: SseEvent[];
  text: string;
}

/**
 * Heals the text blocks of a stream; `outcomes` receives each block's outcome as it completes, so the
 * report is whole by the time `message_stop` passes.
 */
export async function* healStream(events: AsyncIterable<SseEvent>, check: SchemaCheck, outcomes: HealOutcome[]): AsyncGenerator<SseEvent> {
  let held: HeldBlock | null = null;
  for await (const event of events) {
    const name = sseEventName(event);
    if (held === null) {
      const start = name === 'content_block_start' ? typed<ContentBlockStartEvent>(event) : null;
      if (start && isTextBlock(start.content_block)) held = { index: start.index, events: [event], text: start.content_block.text };
      else yield event;
      continue;
    }
    const delta = name === 'content_block_delta' ? typed<ContentBlockDeltaEvent>(event) : null;
    if (delta?.index === held.index) {
      if (delta.delta.type === 'text_delta') held.text += delta.delta.text;
      held.events.push(event);
      continue;
    }
    if (name === 'content_block_stop') {
      const outcome = healJson(held.text, check);
      outcomes.push(outcome);
      if (outcome.status === 'healed') {
        yield { type: 'content_block_start', index: held.index, content_block: { type: 'text', text: '' } };
        yield { type: 'content_block_delta', index: held.index, delta: { type: 'text_delta', text: outcome.text } };
      } else {
        yield* held.events;
      }
      held = null;
      yield event;
      continue;
    }
    // An error (or anything unexpected) while a block is held: what was held goes out first, as it came.
    if (name !== 'ping') {
      yield* held.events;
      held = null;
    }
    yield event;
  }
  if (held !== null) yield* held.events;
}
