/**
 * Maps a request's prompt and the answer's content to the GenAI semantic conventions' message shape
 * (`{role, parts: [{type, content}]}`) for `gen_ai.input.messages`, `gen_ai.output.messages` and
 * `gen_ai.system_instructions`. Text and thinking become text and reasoning parts, tool calls and results
 * their parts; any other block is passed with its own type.
 */
import type { GenerationContent } from '#src/observability/build-generation-record.ts';

/** One part of a GenAI message. */
export type GenAiPart = Record<string, unknown> & { type: string };

/**
 * One GenAI message. No `finish_reason`: the conventions deprecated it in the output messages for the span's
 * `gen_ai.response.finish_reasons`, which the generation span carries.
 */
export interface GenAiMessage {
  role: string;
  parts: GenAiPart[];
}

function mapBlock(block: unknown): GenAiPart {
  if (typeof block === 'string') return { type: 'text', content: block };
  const value = (block ?? {}) as Record<string, unknown>;
  switch (value.type) {
    case 'text':
      return { type: 'text', content: value.text };
    case 'thinking':
      return { type: 'reasoning', content: value.thinking };
    case 'tool_use':
      return { type: 'tool_call', id: value.id, name: value.name, arguments: value.input };
    case 'tool_result':
      return { type: 'tool_call_response', id: value.tool_use_id, response: value.content };
    default:
      return { ...value, type: typeof value.type === 'string' ? value.type : 'unknown' };
  }
}

function parts(content: unknown): GenAiPart[] {
  return Array.isArray(content) ? content.map(mapBlock) : [mapBlock(content)];
}

/** The three GenAI message attributes' values. */
export function toGenAiMessages(content: GenerationContent): { input: GenAiMessage[]; output: GenAiMessage[] | null; system: GenAiPart[] | null } {
  const input = content.prompt.messages.map((message) => {
    const { role, content: body } = (message ?? {}) as { role?: unknown; content?: unknown };
    return { role: typeof role === 'string' ? role : 'user', parts: parts(body) };
  });
  return {
    input,
    output: content.completion ? [{ role: 'assistant', parts: content.completion.map(mapBlock) }] : null,
    system: content.prompt.system === undefined ? null : parts(content.prompt.system),
  };
}
