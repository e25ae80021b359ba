/**
 * The Anthropic-format adapter: a passthrough. The client's JSON goes upstream with only the model replaced,
 * gateway fields removed and a `max_tokens` above the endpoint's output limit lowered to it (Anthropic refuses
 * it with a 400, and clients that do not know a gateway slug ask their largest); the answer comes back as the
 * upstream's own message or SSE events, which the runner amends only with the gateway's additions (model
 * slug, provider, cost).
 */
import type { CountTokensResponse, MessageResponse } from '#src/api-types.ts';
import { UpstreamError } from '#src/errors.ts';
import { apiKeyOf, type AdapterMessage, type AdapterStream, type AttemptCall, type ProviderAdapter } from '#src/providers/provider-adapter.ts';
import { exchangeUpstream, type UpstreamResponse } from '#src/providers/upstream-exchange.ts';
import { upstreamHeadersTimeoutMs } from '#src/providers/http-client.ts';
import { upstreamErrorFromResponse, upstreamErrorFromThrown } from '#src/providers/map-upstream-failure.ts';
import { threadRejectionOf } from '#src/thread-errors.ts';
import { callSecrets } from '#src/providers/call-secrets.ts';
import { PassedEvents } from '#src/providers/anthropic/passed-events.ts';
import { convertToAnthropicBody, convertToAnthropicCountTokensBody } from '#src/providers/anthropic/convert-to-anthropic-body.ts';
import { withinOutputLimit } from '#src/request/output-limit.ts';

const DEFAULT_VERSION = '2023-06-01';

// Anthropic's fast mode is a beta: `speed: "fast"` in the body needs this flag.
const FAST_MODE_BETA = 'fast-mode-2026-02-01';

function headersFor(call: Pick<AttemptCall, 'key' | 'forwardHeaders' | 'providerHeaders' | 'fast'>): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'anthropic-version': call.forwardHeaders['anthropic-version'] ?? DEFAULT_VERSION,
    ...call.providerHeaders,
  };
  const beta = call.forwardHeaders['anthropic-beta'];
  const betas = call.fast && !beta?.includes(FAST_MODE_BETA) ? [beta, FAST_MODE_BETA].filter(Boolean).join(',') : beta;
  if (betas) headers['anthropic-beta'] = betas;
  // Present only on a call with the caller's own key (src/messages/attempt-call.ts).
  const workspace = call.forwardHeaders['anthropic-workspace-id'];
  if (workspace) headers['anthropic-workspace-id'] = workspace;
  const userProfile = call.forwardHeaders['anthropic-user-profile-id'];
  if (userProfile) headers['anthropic-user-profile-id'] = userProfile;
  const key = apiKeyOf(call.key);
  if (key) headers['x-api-key'] = key;
  return headers;
}

// Anthropic's SDKs allow a JSON answer an hour per 128,000 tokens of max_tokens (within their 10 minutes).
const MS_PER_OUTPUT_TOKEN = 3_600_000 / 128_000;

/**
 * How long a JSON answer may take to start: its headers come only when the whole answer is written, so a
 * large `max_tokens` may take minutes where a stream's first bytes come at once. The configured headers
 * timeout is the floor; the request's time budget (its signal) still bounds the call.
 */
function jsonAnswerTimeout(maxTokens: number | undefined): number | undefined {
  const configured = upstreamHeadersTimeoutMs();
  const needed = typeof maxTokens === 'number' ? Math.ceil(maxTokens * MS_PER_OUTPUT_TOKEN) : 0;
  return configured > 0 && needed > configured ? needed : undefined;
}

async function send(call: Pick<AttemptCall, 'provider' | 'baseUrl' | 'signal' | 'key' | 'awsCredentials' | 'forwardHeaders' | 'providerHeaders' | 'fast'>, path: string, body: string, headersTimeout?: number): Promise<UpstreamResponse> {
  let response: UpstreamResponse;
  try {
    const options = { method: 'POST' as const, headers: headersFor(call), body, signal: call.signal };
    response = await exchangeUpstream(`${call.baseUrl}${path}`, headersTimeout === undefined ? options : { ...options, headersTimeout });
  } catch (error) {
    throw upstreamErrorFromThrown(call.provider, error);
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await response.body.text().catch(() => '');
  // Its SDK recovers from a thread refusal by its code: answered as it is, not tried elsewhere.
  const threadRejection = threadRejectionOf(call.provider, response.statusCode, text, callSecrets(call));
  if (threadRejection) throw threadRejection;
  const failure = upstreamErrorFromResponse({
    provider: call.provider,
    status: response.statusCode,
    body: text,
    vendorMessage: vendorMessageOf(text),
    secrets: callSecrets(call),
    retryAfter: response.headers['retry-after'],
  });
  // As received, no copy: only a rate-limited attempt of the caller's own key reads them (its rate-limit headers).
  failure.upstreamHeaders = response.headers;
  throw failure;
}

function vendorMessageOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof parsed.error?.message === 'string' ? parsed.error.message : undefined;
  } catch {
    return undefined;
  }
}

/** The adapter for Anthropic and Anthropic-format upstreams. */
export const anthropicAdapter: ProviderAdapter = {
  family: 'anthropic',

  async generate(call): Promise<AdapterMessage> {
    const { value: request, warnings } = withinOutputLimit(call.request, call.outputLimit);
    const response = await send(call, '/v1/messages', convertToAnthropicBody(request, call.upstreamModel, false, call.fast), jsonAnswerTimeout(request.max_tokens));
    let message: MessageResponse;
    try {
      message = (await response.body.json()) as MessageResponse;
    } catch (error) {
      // A body that stalls or breaks off is a timeout or a connection failure; only bad JSON is malformed.
      throw upstreamErrorFromThrown(call.provider, error);
    }
    if (message?.type !== 'message' || !Array.isArray(message.content)) {
      throw new UpstreamError({ provider: call.provider, kind: 'malformed_response', message: `Upstream ${call.provider} answered with something that is not a message` });
    }
    // The headers object as received, no copy: only a caller's own key's answer reads it (rate-limit headers).
    return { message, warnings, upstreamHeaders: response.headers };
  },

  async stream(call): Promise<AdapterStream> {
    const { value: request, warnings } = withinOutputLimit(call.request, call.outputLimit);
    const response = await send(call, '/v1/messages', convertToAnthropicBody(request, call.upstreamModel, true, call.fast));
    const contentType = String(response.headers['content-type'] ?? '');
    if (!contentType.includes('text/event-stream')) {
      response.body.discard();
      throw new UpstreamError({ provider: call.provider, kind: 'malformed_response', message: `Upstream ${call.provider} did not answer with an event stream` });
    }
    return { events: new PassedEvents(call.provider, response.body), warnings, upstreamHeaders: response.headers };
  },

  // The answer is passed on whole, as a message is: with context editing it carries context_management too.
  async countTokens(call) {
    const response = await send(call, '/v1/messages/count_tokens', convertToAnthropicCountTokensBody(call.request, call.upstreamModel));
    let parsed: { input_tokens?: unknown } | undefined;
    try {
      parsed = (await response.body.json()) as typeof parsed;
    } catch (error) {
      throw upstreamErrorFromThrown(call.provider, error);
    }
    if (typeof parsed?.input_tokens !== 'number') {
      throw new UpstreamError({ provider: call.provider, kind: 'malformed_response', message: `Upstream ${call.provider} answered count_tokens without a count` });
    }
    return parsed as CountTokensResponse;
  },
};
