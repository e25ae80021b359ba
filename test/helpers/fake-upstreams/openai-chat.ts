import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from './fake-server.ts';
import { openAiError, openAiErrorObject, refusedFunctionName, refusedFunctionSchema } from './openai-error.ts';
import { encodeSseFrame, type SseLineEnding } from './sse-frame.ts';
import type { WireFormat } from './wire-format.ts';

/** Options of the fake Chat Completions API. */
export interface FakeOpenAiChatOptions extends FakeUpstreamOptions {
  lineEnding?: SseLineEnding;
}

/**
 * The Chat Completions wire format: `data:` SSE lines without event names, ended by `data: [DONE]`.
 * Any path ending in `/chat/completions` matches, so vendors with other prefixes (`/openai/v1`, none) work.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 */
export function openAiChatFormat(options: { lineEnding?: SseLineEnding } = {}): WireFormat {
  const lineEnding = options.lineEnding ?? '\n';
  return {
    fixtureVendor: 'openai-chat',
    route(method, path) {
      if (method !== 'POST' || !path.endsWith('/chat/completions')) return undefined;
      return { operation: 'chat.completions', params: {} };
    },
    answerDirectly: (request) =>
      refusedFunctionName(request.body, (tool) => {
        const fn = tool.function as { name?: unknown } | undefined;
        return tool.type === 'function' && fn ? { name: String(fn.name), param: 'tools[#].function.name' } : undefined;
      }) ??
      refusedFunctionSchema(request.body, (tool) => {
        const fn = tool.function as { name?: unknown; parameters?: unknown } | undefined;
        return tool.type === 'function' && fn ? { name: String(fn.name), parameters: fn.parameters, param: 'tools[#].function.parameters' } : undefined;
      }),
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
