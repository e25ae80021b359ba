import { randomBytes } from 'node:crypto';
import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from './fake-server.ts';
import { encodeSseFrame, eventTypeOf, type SseLineEnding } from './sse-frame.ts';
import type { VendorError, WireFormat } from './wire-format.ts';

/** Options of the fake Anthropic Messages API. */
export interface FakeAnthropicOptions extends FakeUpstreamOptions {
  /** `input_tokens` answered by `POST /v1/messages/count_tokens` (default 12). */
  countTokens?: number;
  /** The whole body `POST /v1/messages/count_tokens` answers, read per request (wins over `countTokens`). */
  countTokensBody?: () => unknown;
  lineEnding?: SseLineEnding;
  /**
   * Output limits per model id: a message request whose `max_tokens` is above its model's gets Anthropic's 400
   * (`max_tokens: N > L, which is the maximum allowed number of output tokens for <model>`), outside the script.
   */
  outputLimits?: Readonly<Record<string, number>>;
}

/**
 * Anthropic's error `type` per HTTP status.
 * @see https://docs.anthropic.com/en/api/errors
 */
const errorTypes: Record<number, { type: string; message: string }> = {
  400: { type: 'invalid_request_error', message: 'messages: field required' },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  404: { type: 'not_found_error', message: 'Not found' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
  500: { type: 'api_error', message: 'Internal server error' },
  504: { type: 'timeout_error', message: 'Request timed out' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

function requestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

/** Anthropic's refusal of a `max_tokens` above the model's output limit, or undefined when within it. */
function outputLimitRefusal(body: unknown, limits: Readonly<Record<string, number>> | undefined): string | undefined {
  const { model, max_tokens: maxTokens } = (body ?? {}) as { model?: unknown; max_tokens?: unknown };
  const limit = typeof model === 'string' ? limits?.[model] : undefined;
  if (limit === undefined || typeof maxTokens !== 'number' || maxTokens <= limit) return undefined;
  return `max_tokens: ${maxTokens} > ${limit}, which is the maximum allowed number of output tokens for ${String(model)}`;
}

function errorPayload(status: number, message?: string): { type: 'error'; error: { type: string; message: string } } {
  const known = errorTypes[status] ?? { type: status >= 500 ? 'api_error' : 'invalid_request_error', message: 'Error' };
  return { type: 'error', error: { type: known.type, message: message ?? known.message } };
}

/** The Anthropic Messages wire format: `event: <type>` + `data:` SSE, `{type:"error"}` bodies. */
export function anthropicMessagesFormat(
  options: Pick<FakeAnthropicOptions, 'countTokens' | 'countTokensBody' | 'lineEnding' | 'outputLimits'> = {},
): WireFormat {
  const lineEnding = options.lineEnding ?? '\n';
  return {
    fixtureVendor: 'anthropic',
    route(method, path) {
      if (method !== 'POST') return undefined;
      if (path === '/v1/messages') return { operation: 'messages', params: {} };
      if (path === '/v1/messages/count_tokens') return { operation: 'count_tokens', params: {} };
      return undefined;
    },
    answerDirectly(request) {
      if (request.operation === 'messages') {
        const refusal = outputLimitRefusal(request.body, options.outputLimits);
        if (refusal === undefined) return undefined;
        const id = requestId();
        return { status: 400, body: { ...errorPayload(400, refusal), request_id: id }, headers: { 'request-id': id } };
      }
      if (request.operation !== 'count_tokens') return undefined;
      return { status: 200, body: options.countTokensBody?.() ?? { input_tokens: options.countTokens ?? 12 } };
    },
    streamContentType: 'text/event-stream; charset=utf-8',
    encodeEvent: (payload) => encodeSseFrame({ event: eventTypeOf(payload), data: payload, lineEnding }),
    errorFor(status, message): VendorError {
      const id = requestId();
      const headers: Record<string, string> = { 'request-id': id };
      if (status === 429) headers['retry-after'] = '1';
      return { body: { ...errorPayload(status, message), request_id: id }, headers };
    },
    streamErrorFor: (status, message) =>
      encodeSseFrame({ event: 'error', data: errorPayload(status, message), lineEnding }),
  };
}

/**
 * Starts a fake Anthropic API: `POST /v1/messages` (JSON, or SSE when the body says `stream: true`) and
 * `POST /v1/messages/count_tokens`. `baseURL` is the origin: the Anthropic SDK appends `/v1/messages` itself.
 */
export function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream(anthropicMessagesFormat(options), options);
}
