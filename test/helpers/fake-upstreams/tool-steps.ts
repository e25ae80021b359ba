/**
 * Scripted steps of a tool loop in each vendor's real wire format, as one reply that answers a JSON request
 * with the whole body and a streaming one with the events: a model that asks for tools (and may say
 * something first), or one that answers in text (which may cite search results). Shapes follow the recordings
 * in `test/fixtures/` (Anthropic `anthropic-json-tool.1`, Chat Completions `deepseek-tool-call`, Gemini
 * `google-tool-call`, Bedrock `amazon-bedrock-tool-call.1`). Queue them in order, one per upstream request;
 * `delivery` applies to both forms (e.g. `{ split: { seed: 3 } }` re-cuts the stream's bytes).
 */
import { reply, type EitherReply, type ReplyDelivery } from './fake-reply.ts';

/** A tool call the scripted model makes. */
export interface ScriptedCall {
  name: string;
  input: Record<string, unknown>;
  /** The vendor's call id; one is made up when absent. */
  id?: string;
}

/** One scripted model answer. */
export interface ScriptedStep {
  /** Text before the calls (or the whole answer). */
  text?: string;
  calls?: readonly ScriptedCall[];
  /**
   * Token counts as the vendor reports them (for Chat Completions and Gemini, `input` includes `cacheRead`);
   * `reasoning` is Gemini's `thoughtsTokenCount`, which its `candidatesTokenCount` (`output`) leaves out.
   * `cacheWrite1h`: the part of `cacheWrite` written for an hour; given, an Anthropic step reports the
   * `cache_creation` split (the rest five-minute writes).
   */
  usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number; cacheWrite1h?: number; reasoning?: number };
  /** Anthropic citations on the text (e.g. `search_result_location`), sent as `citations_delta` in a stream. */
  citations?: readonly Record<string, unknown>[];
  /** Anthropic `stop_reason`; default `tool_use` with calls, else `end_turn`. */
  stopReason?: string;
  /** Anthropic `stop_details` (a refusal's category and explanation), in the message or the `message_delta`. */
  stopDetails?: Record<string, unknown>;
  /** Anthropic `container` (code execution), in the message or the `message_delta`. */
  container?: Record<string, unknown>;
  /**
   * More Anthropic usage fields (`server_tool_use`, `iterations`), in the message's usage or the stream's
   * `message_delta` usage, where Anthropic reports them.
   */
  moreUsage?: Record<string, unknown>;
  /** Anthropic usage fields it reports once, in the message's usage or the stream's `message_start` (`speed`). */
  startUsage?: Record<string, unknown>;
}

let counter = 0;
function nextId(prefix: string): string {
  counter += 1;
  return `${prefix}${String(counter).padStart(6, '0')}`;
}

/** Splits a text in two pieces (so streams carry more than one delta). */
function halves(text: string): string[] {
  const middle = Math.ceil(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)].filter((piece) => piece !== '');
}

/** An Anthropic Messages step. */
export function anthropicStep(step: ScriptedStep, delivery: ReplyDelivery = {}): EitherReply {
  const calls = (step.calls ?? []).map((call) => ({ ...call, id: call.id ?? nextId('toolu_01Scripted') }));
  const stopReason = step.stopReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn');
  const written = step.usage.cacheWrite ?? 0;
  const split = step.usage.cacheWrite1h === undefined ? {} : { cache_creation: { ephemeral_5m_input_tokens: written - step.usage.cacheWrite1h, ephemeral_1h_input_tokens: step.usage.cacheWrite1h } };
  const usage = { input_tokens: step.usage.input, cache_creation_input_tokens: written, cache_read_input_tokens: step.usage.cacheRead ?? 0, ...split };
  const id = nextId('msg_01Scripted');
  const content: Record<string, unknown>[] = [];
  if (step.text !== undefined) content.push({ type: 'text', text: step.text, ...(step.citations ? { citations: step.citations } : {}) });
  for (const call of calls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
  const json = {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-scripted',
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    ...(step.stopDetails ? { stop_details: step.stopDetails } : {}),
    ...(step.container ? { container: step.container } : {}),
    usage: { ...usage, output_tokens: step.usage.output, service_tier: 'standard', ...step.startUsage, ...step.moreUsage },
  };
  const events: unknown[] = [
    { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: 'claude-scripted', content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1, service_tier: 'standard', ...step.startUsage } } },
    { type: 'ping' },
  ];
  let index = 0;
  if (step.text !== undefined) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '', ...(step.citations ? { citations: [] } : {}) } });
    for (const piece of halves(step.text)) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    for (const citation of step.citations ?? []) events.push({ type: 'content_block_delta', index, delta: { type: 'citations_delta', citation } });
    events.push({ type: 'content_block_stop', index });
    index += 1;
  }
  for (const call of calls) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } });
    events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const piece of halves(JSON.stringify(call.input))) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    events.push({ type: 'content_block_stop', index });
    index += 1;
  }
  const endings = { ...(step.stopDetails ? { stop_details: step.stopDetails } : {}), ...(step.container ? { container: step.container } : {}) };
  events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null, ...endings }, usage: { output_tokens: step.usage.output, ...step.moreUsage } });
  events.push({ type: 'message_stop' });
  return reply.either(reply.json(json, delivery), reply.events(events, delivery));
}

/** An OpenAI Chat Completions step. */
export function openAiChatStep(step: ScriptedStep, delivery: ReplyDelivery = {}): EitherReply {
  const calls = (step.calls ?? []).map((call) => ({ ...call, id: call.id ?? nextId('call_scripted') }));
  const finishReason = calls.length > 0 ? 'tool_calls' : 'stop';
  const usage = {
    prompt_tokens: step.usage.input,
    completion_tokens: step.usage.output,
    total_tokens: step.usage.input + step.usage.output,
    prompt_tokens_details: { cached_tokens: step.usage.cacheRead ?? 0 },
  };
  const id = nextId('chatcmpl-scripted');
  const base = { id, created: 1767225600, model: 'gpt-scripted' };
  const toolCalls = calls.map((call, index) => ({ index, id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.input) } }));
  const json = {
    ...base,
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content: step.text ?? null, ...(calls.length > 0 ? { tool_calls: toolCalls } : {}) }, logprobs: null, finish_reason: finishReason }],
    usage,
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of halves(step.text ?? '')) events.push(chunk({ content: piece }));
  calls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (const piece of halves(JSON.stringify(call.input))) events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(chunk({}, finishReason));
  events.push({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  return reply.either(reply.json(json, delivery), reply.events(events, delivery));
}

/** A Gemini generateContent step. */
export function geminiStep(step: ScriptedStep, delivery: ReplyDelivery = {}): EitherReply {
  const parts: Record<string, unknown>[] = [];
  if (step.text !== undefined) parts.push({ text: step.text });
  for (const call of step.calls ?? []) parts.push({ functionCall: { name: call.name, args: call.input } });
  const usageMetadata = {
    promptTokenCount: step.usage.input,
    candidatesTokenCount: step.usage.output,
    totalTokenCount: step.usage.input + step.usage.output + (step.usage.reasoning ?? 0),
    ...(step.usage.cacheRead ? { cachedContentTokenCount: step.usage.cacheRead } : {}),
    ...(step.usage.reasoning ? { thoughtsTokenCount: step.usage.reasoning } : {}),
  };
  const base = { modelVersion: 'gemini-scripted', responseId: nextId('scripted-response-') };
  const json = { candidates: [{ content: { parts, role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata, ...base };
  const events: unknown[] = [];
  for (const piece of halves(step.text ?? '')) events.push({ candidates: [{ content: { parts: [{ text: piece }], role: 'model' }, index: 0 }], ...base });
  for (const call of step.calls ?? []) events.push({ candidates: [{ content: { parts: [{ functionCall: { name: call.name, args: call.input } }], role: 'model' }, index: 0 }], ...base });
  events.push({ candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata, ...base });
  return reply.either(reply.json(json, delivery), reply.events(events, delivery));
}

/** An Amazon Bedrock Converse step. */
export function bedrockStep(step: ScriptedStep, delivery: ReplyDelivery = {}): EitherReply {
  const calls = (step.calls ?? []).map((call) => ({ ...call, id: call.id ?? nextId('tooluse_scripted') }));
  const stopReason = calls.length > 0 ? 'tool_use' : 'end_turn';
  const content: Record<string, unknown>[] = [];
  if (step.text !== undefined) content.push({ text: step.text });
  for (const call of calls) content.push({ toolUse: { toolUseId: call.id, name: call.name, input: call.input } });
  const usage = { inputTokens: step.usage.input, outputTokens: step.usage.output, totalTokens: step.usage.input + step.usage.output };
  const json = { output: { message: { role: 'assistant', content } }, stopReason, usage, metrics: { latencyMs: 120 } };
  const events: unknown[] = [{ messageStart: { role: 'assistant' } }];
  let index = 0;
  if (step.text !== undefined) {
    for (const piece of halves(step.text)) events.push({ contentBlockDelta: { contentBlockIndex: index, delta: { text: piece } } });
    events.push({ contentBlockStop: { contentBlockIndex: index } });
    index += 1;
  }
  for (const call of calls) {
    events.push({ contentBlockStart: { contentBlockIndex: index, start: { toolUse: { toolUseId: call.id, name: call.name } } } });
    events.push({ contentBlockDelta: { contentBlockIndex: index, delta: { toolUse: { input: JSON.stringify(call.input) } } } });
    events.push({ contentBlockStop: { contentBlockIndex: index } });
    index += 1;
  }
  events.push({ messageStop: { stopReason } }, { metadata: { usage, metrics: { latencyMs: 120 } } });
  return reply.either(reply.json(json, delivery), reply.events(events, delivery));
}
