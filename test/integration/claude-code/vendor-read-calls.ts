/**
 * What the Claude Code suites on translated vendors need beyond claude-code-support: an OpenAI Responses
 * stream asking for the CLI's `Read` tool (optionally after encrypted reasoning with a summary, in the shape of
 * the recording `openai-reasoning-encrypted-content.1`) or answering in text, a scripted Responses step (text
 * and any function calls, as the other vendors' `*Step` helpers), and a small valid PNG for `Read` to return as an image.
 */
import { deflateSync } from 'node:zlib';
import { reply, type FakeReply, type ScriptedStep } from '#test/helpers/fake-upstreams/index.ts';

/** The reasoning item a Responses turn starts with: its summary and the opaque state OpenAI wants back. */
export interface ResponsesReasoning {
  id: string;
  summary: string;
  encryptedContent: string;
}

/** A Responses stream: optional reasoning, then a `Read` function call on `file` with the call id `callId`. */
export function responsesReadCall(file: string, callId: string, reasoning?: ResponsesReasoning): FakeReply {
  const call = { id: 'fc_01ReadProbe', type: 'function_call', status: 'completed', arguments: JSON.stringify({ file_path: file }), call_id: callId, name: 'Read' };
  const thought = reasoning && { id: reasoning.id, type: 'reasoning', encrypted_content: reasoning.encryptedContent, summary: [{ type: 'summary_text', text: reasoning.summary }] };
  const usage = { input_tokens: 3100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: reasoning ? 12 : 0 }, total_tokens: 3140 };
  const response = (status: string, output: unknown[]) => ({ id: 'resp_01ReadProbe', object: 'response', created_at: 1_790_000_000, status, model: 'gpt-5-mini-2025-08-07', output, usage: status === 'completed' ? usage : null });
  const events: Array<Record<string, unknown>> = [{ type: 'response.created', response: response('in_progress', []) }];
  let index = 0;
  if (thought) {
    const at = { item_id: thought.id, output_index: index, summary_index: 0 };
    events.push(
      { type: 'response.output_item.added', output_index: index, item: { ...thought, summary: [] } },
      { type: 'response.reasoning_summary_part.added', ...at, part: { type: 'summary_text', text: '' } },
      { type: 'response.reasoning_summary_text.delta', ...at, delta: reasoning.summary },
      { type: 'response.reasoning_summary_text.done', ...at, text: reasoning.summary },
      { type: 'response.reasoning_summary_part.done', ...at, part: { type: 'summary_text', text: reasoning.summary } },
      { type: 'response.output_item.done', output_index: index, item: thought },
    );
    index += 1;
  }
  events.push(
    { type: 'response.output_item.added', output_index: index, item: { ...call, status: 'in_progress', arguments: '' } },
    { type: 'response.function_call_arguments.delta', item_id: call.id, output_index: index, delta: call.arguments },
    { type: 'response.function_call_arguments.done', item_id: call.id, output_index: index, arguments: call.arguments },
    { type: 'response.output_item.done', output_index: index, item: call },
    { type: 'response.completed', response: response('completed', [...(thought ? [thought] : []), call]) },
  );
  return reply.events(events.map((event, sequence) => ({ ...event, sequence_number: sequence })));
}

/** A Responses stream answering `text` (the shape of the recording `openai-phase.1`, trimmed). */
export function responsesText(text: string): FakeReply {
  const message = { id: 'msg_01ImageAnswer', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
  const usage = { input_tokens: 3200, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 3209 };
  const response = (status: string, output: unknown[]) => ({ id: 'resp_01ImageAnswer', object: 'response', created_at: 1_790_000_000, status, model: 'gpt-5-mini-2025-08-07', output, usage: status === 'completed' ? usage : null });
  const at = { item_id: message.id, output_index: 0, content_index: 0 };
  const events = [
    { type: 'response.created', response: response('in_progress', []) },
    { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', ...at, delta: text },
    { type: 'response.output_text.done', ...at, text },
    { type: 'response.content_part.done', ...at, part: message.content[0] },
    { type: 'response.output_item.done', output_index: 0, item: message },
    { type: 'response.completed', response: response('completed', [message]) },
  ];
  return reply.events(events.map((event, sequence) => ({ ...event, sequence_number: sequence })));
}

let stepCounter = 0;

/**
 * A Responses stream for one scripted step: its text as a `message` item, then each call as a
 * `function_call` item (the shapes of `responsesText` and `responsesReadCall`); `usage.cacheRead` is
 * `input_tokens_details.cached_tokens`, which OpenAI counts inside `input_tokens`.
 */
export function responsesStep(step: ScriptedStep): FakeReply {
  stepCounter += 1;
  const tag = String(stepCounter).padStart(4, '0');
  const usage = {
    input_tokens: step.usage.input,
    input_tokens_details: { cached_tokens: step.usage.cacheRead ?? 0 },
    output_tokens: step.usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: step.usage.input + step.usage.output,
  };
  const items: Array<Record<string, any>> = [];
  if (step.text !== undefined) items.push({ id: `msg_01Step${tag}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: step.text, annotations: [] }] });
  (step.calls ?? []).forEach((call, index) => {
    items.push({ id: `fc_01Step${tag}_${index}`, type: 'function_call', status: 'completed', arguments: JSON.stringify(call.input), call_id: call.id ?? `call_Step${tag}_${index}`, name: call.name });
  });
  const response = (status: string, output: unknown[]) => ({ id: `resp_01Step${tag}`, object: 'response', created_at: 1_790_000_000, status, model: 'gpt-5-mini-2025-08-07', output, usage: status === 'completed' ? usage : null });
  const events: Array<Record<string, unknown>> = [{ type: 'response.created', response: response('in_progress', []) }];
  items.forEach((item, index) => {
    if (item.type === 'message') {
      const at = { item_id: item.id, output_index: index, content_index: 0 };
      events.push(
        { type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', content: [] } },
        { type: 'response.content_part.added', ...at, part: { type: 'output_text', text: '', annotations: [] } },
        { type: 'response.output_text.delta', ...at, delta: step.text },
        { type: 'response.output_text.done', ...at, text: step.text },
        { type: 'response.content_part.done', ...at, part: item.content[0] },
        { type: 'response.output_item.done', output_index: index, item },
      );
      return;
    }
    events.push(
      { type: 'response.output_item.added', output_index: index, item: { ...item, status: 'in_progress', arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: index, delta: item.arguments },
      { type: 'response.function_call_arguments.done', item_id: item.id, output_index: index, arguments: item.arguments },
      { type: 'response.output_item.done', output_index: index, item },
    );
  });
  events.push({ type: 'response.completed', response: response('completed', items) });
  return reply.events(events.map((event, sequence) => ({ ...event, sequence_number: sequence })));
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `size`×`size` RGB PNG (a gradient), small enough that the CLI sends it as it is. */
export function tinyPng(size = 16): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const rows = Buffer.alloc((size * 3 + 1) * size);
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) rows.set([255, x * 15, y * 15], y * (size * 3 + 1) + 1 + x * 3);
  }
  const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([signature, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))]);
}
