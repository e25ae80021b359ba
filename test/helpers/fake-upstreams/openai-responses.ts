import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from './fake-server.ts';
import { openAiError, openAiErrorObject, refusedFunctionName, refusedFunctionSchema } from './openai-error.ts';
import { encodeSseFrame, eventTypeOf, type SseLineEnding } from './sse-frame.ts';
import type { WireFormat } from './wire-format.ts';

/** Options of the fake Responses API. */
export interface FakeOpenAiResponsesOptions extends FakeUpstreamOptions {
  lineEnding?: SseLineEnding;
}

/**
 * The OpenAI Responses wire format: SSE with `event: <type>` lines repeating the payload's `type`, no `[DONE]`.
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function openAiResponsesFormat(options: { lineEnding?: SseLineEnding } = {}): WireFormat {
  const lineEnding = options.lineEnding ?? '\n';
  return {
    fixtureVendor: 'openai-responses',
    route(method, path) {
      if (method !== 'POST' || !path.endsWith('/responses')) return undefined;
      return { operation: 'responses', params: {} };
    },
    answerDirectly: (request) =>
      refusedFunctionName(request.body, (tool) => (tool.type === 'function' ? { name: String(tool.name), param: 'tools[#].name' } : undefined)) ??
      refusedFunctionSchema(request.body, (tool) => (tool.type === 'function' ? { name: String(tool.name), parameters: tool.parameters, param: 'tools[#].parameters' } : undefined)),
    streamContentType: 'text/event-stream; charset=utf-8',
    encodeEvent: (payload) => encodeSseFrame({ event: eventTypeOf(payload), data: payload, lineEnding }),
    errorFor: openAiError,
    // As recorded in openai-error.1.chunks.txt: an `error` event carrying type, code and message.
    streamErrorFor(status, message, errorCode) {
      const { type, code, message: text } = openAiErrorObject(status, message, errorCode);
      const payload = { type: 'error', sequence_number: 0, error: { type, code, message: text, param: null } };
      return encodeSseFrame({ event: 'error', data: payload, lineEnding });
    },
  };
}

/** Starts a fake OpenAI Responses API (`POST /v1/responses`); `baseURL` is origin + `/v1` as `createOpenAI` expects. */
export function startFakeOpenAiResponses(options: FakeOpenAiResponsesOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream(openAiResponsesFormat(options), options, '/v1');
}
