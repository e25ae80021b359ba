/**
 * Maps whatever an AI SDK provider throws (or puts in an `error` stream part) to the gateway's error model:
 * an `UpstreamError` for everything the vendor or the network did, an `UnsupportedFeatureError` for what the
 * SDK refused to send (a feature the vendor lacks: another endpoint may have it). The vendor's body is kept in `rawBody` for logs only. The
 * error classes are matched with `isInstance`, which works across the several copies of
 * `@ai-sdk/provider` the provider packages bring.
 */
import {
  APICallError,
  EmptyResponseBodyError,
  InvalidArgumentError,
  InvalidPromptError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider';
import { GatewayError, UnsupportedFeatureError, UpstreamError } from '#src/errors.ts';
import { upstreamErrorFromResponse, upstreamErrorFromThrown } from '#src/providers/map-upstream-failure.ts';
import { upstreamErrorOfStreamError } from '#src/providers/ai-sdk/map-stream-error.ts';

/** The gateway error for one AI SDK failure; `secrets`, what the call was made with (`callSecrets`), never appear in it. */
export function mapAiSdkError(error: unknown, provider: string, secrets: readonly string[] = []): GatewayError {
  if (error instanceof GatewayError) return error;
  if (APICallError.isInstance(error)) {
    // A failure while reading a successful answer carries the answer's 2xx status: that is no HTTP error.
    if (error.statusCode !== undefined && error.statusCode >= 400) {
      return upstreamErrorFromResponse({
        provider,
        status: error.statusCode,
        body: error.responseBody ?? '',
        ...vendorMessageOf(error.data),
        secrets,
        retryAfter: error.responseHeaders?.['retry-after'],
        errorCode: vendorErrorCodeOf(error.responseHeaders, error.data),
        // OpenAI's stream that fails before its output is thrown with the status its error frame stands for,
        // under the headers of the event stream the upstream answered with 200.
        ...(isEventStream(error.responseHeaders) ? { answeredStatus: 200 } : {}),
      });
    }
    // No status: the request never got an answer (refused, reset, timed out); the cause says which.
    return upstreamErrorFromThrown(provider, error.cause ?? error);
  }
  if (UnsupportedFunctionalityError.isInstance(error)) {
    return new UnsupportedFeatureError(`${error.functionality} is not supported by ${provider}`, { cause: error });
  }
  if (InvalidPromptError.isInstance(error) || InvalidArgumentError.isInstance(error)) {
    return new UnsupportedFeatureError(`the request cannot be expressed for ${provider}`, { cause: error });
  }
  if (LoadAPIKeyError.isInstance(error)) {
    return new UpstreamError({ provider, kind: 'authentication', message: `Upstream ${provider} failed: no API key configured`, cause: error });
  }
  if (
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    InvalidResponseDataError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error)
  ) {
    return new UpstreamError({ provider, kind: 'malformed_response', cause: error, rawBody: rawTextOf(error) });
  }
  if (isVendorErrorObject(error)) return upstreamErrorOfStreamError(error, provider, secrets);
  return upstreamErrorFromThrown(provider, error);
}

function vendorMessageOf(data: unknown): { vendorMessage?: string } {
  if (typeof data !== 'object' || data === null) return {};
  const nested = (data as { error?: unknown }).error;
  const message = typeof nested === 'object' && nested !== null ? (nested as { message?: unknown }).message : (data as { message?: unknown }).message;
  return typeof message === 'string' ? { vendorMessage: message } : {};
}

// Bedrock names its exception in a header (`ServiceQuotaExceededException:http://internal.amazon.com/…`);
// OpenAI-compatible vendors in the body's `error.code`, OpenAI's stream error frame in its own `code`.
function vendorErrorCodeOf(headers: Record<string, string> | undefined, data: unknown): string | undefined {
  const exception = headers?.['x-amzn-errortype']?.split(':')[0];
  if (exception) return exception;
  if (typeof data !== 'object' || data === null) return undefined;
  const nested = (data as { error?: unknown }).error;
  const code = (typeof nested === 'object' && nested !== null ? nested : data) as { code?: unknown };
  return typeof code.code === 'string' ? code.code : undefined;
}

function isEventStream(headers: Record<string, string> | undefined): boolean {
  return headers?.['content-type']?.startsWith('text/event-stream') === true;
}

function rawTextOf(error: unknown): string | undefined {
  const text = (error as { text?: unknown }).text;
  return typeof text === 'string' ? text.slice(0, 4096) : undefined;
}

/** An error payload a vendor sent inside a stream (`{type, code, message}` or `{error: {...}}`). */
function isVendorErrorObject(error: unknown): error is Record<string, unknown> {
  return typeof error === 'object' && error !== null && !(error instanceof Error);
}
