import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from './fake-server.ts';
import { openAiError, openAiErrorObject, refusedFunctionName, refusedFunctionSchema } from './openai-error.ts';
import { encodeSseFrame, type SseLineEnding } from './sse-frame.ts';
import type { WireFormat } from './wire-format.ts';

/** Options of the fake Chat Completions API. */
export interface FakeOpenAiChatOptions extends FakeUpstreamOptions {
  lineEnding?: SseLineEnding;
  /** Answer as DeepSeek's thinking mode, which refuses a tool-calling turn without its reasoning back. */
  deepseekThinking?: boolean;
}

/**
 * DeepSeek's 400 in thinking mode (on unless `thinking: {type: "disabled"}`) for an assistant message of a
 * tool-calling turn (between two user messages) without `reasoning_content`, in DeepSeek's words (as reported
 * in deepseek-ai/deepseek-harness#739); undefined when every such message has it.
 * @see https://api-docs.deepseek.com/guides/thinking_mode
 */
function missingToolTurnReasoning(body: unknown): string | undefined {
  const request = body as { thinking?: { type?: string }; messages?: Array<Record<string, unknown>> } | null;
  if (request?.thinking?.type === 'disabled' || !Array.isArray(request?.messages)) return undefined;
  let turn: Array<Record<string, unknown>> = [];
  for (const message of [...request.messages, { role: 'user' }]) {
    if (message.role !== 'user') {
      turn.push(message);
      continue;
    }
    const assistants = turn.filter((entry) => entry.role === 'assistant');
    const calledTools = assistants.some((entry) => Array.isArray(entry.tool_calls) && entry.tool_calls.length > 0);
    if (calledTools && assistants.some((entry) => typeof entry.reasoning_content !== 'string')) return 'The `reasoning_content` in the thinking mode must be passed back to the API.';
    turn = [];
  }
  return undefined;
}

/**
 * The Chat Completions wire format: `data:` SSE lines without event names, ended by `data: [DONE]`.
 * Any path ending in `/chat/completions` matches, so vendors with other prefixes (`/openai/v1`, none) work.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
export function openAiChatFormat(options: { lineEnding?: SseLineEnding; deepseekThinking?: boolean } = {}): WireFormat {
  const lineEnding = options.lineEnding ?? '\n';
  return {
    fixtureVendor: 'openai-chat',
    route(method, path) {
      if (method !== 'POST' || !path.endsWith('/chat/completions')) return undefined;
      return { operation: 'chat.completions', params: {} };
    },
    answerDirectly: (request) => {
      const missing = options.deepseekThinking ? missingToolTurnReasoning(request.body) : undefined;
      if (missing !== undefined) return { status: 400, body: openAiError(400, missing, 'invalid_request_error').body };
      const refusedName = refusedFunctionName(request.body, (tool) => {
        const fn = tool.function as { name?: unknown } | undefined;
        return tool.type === 'function' && fn ? { name: String(fn.name), param: 'tools[#].function.name' } : undefined;
      });
      return (
        refusedName ??
        refusedFunctionSchema(request.body, (tool) => {
          const fn = tool.function as { name?: unknown; parameters?: unknown } | undefined;
          return tool.type === 'function' && fn ? { name: String(fn.name), parameters: fn.parameters, param: 'tools[#].function.parameters' } : undefined;
        })
      );
    },
    streamContentType: 'text/event-stream; charset=utf-8',
    encodeEvent: (payload) => encodeSseFrame({ data: payload, lineEnding }),
    streamTerminator: encodeSseFrame({ data: '[DONE]', lineEnding }),
    errorFor: openAiError,
    // OpenAI reports a failure after the stream has started as a data line holding an `error` object.
    streamErrorFor: (status, message, code) => encodeSseFrame({ data: { error: openAiErrorObject(status, message, code) }, lineEnding }),
  };
}

/**
 * Starts a fake OpenAI Chat Completions API (also the OpenAI-compatible vendors: groq, mistral, xai,
 * deepseek fixtures via `reply.fixture(name, { vendor })`). `baseURL` is origin + `/v1`, as `createOpenAI` and
 * `createOpenAICompatible` expect.
 */
export function startFakeOpenAiChat(options: FakeOpenAiChatOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream(openAiChatFormat(options), options, '/v1');
}
