/**
 * The adapter for every vendor reached through the Vercel AI SDK: translate the Anthropic request into call
 * options, call the provider package's language model once (`doGenerate` / `doStream`, no SDK retry or tool
 * loop: retries and fallbacks belong to the attempt runner), and translate the answer back.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { type AdapterMessage, type AdapterStream, type AttemptCall, type ProviderAdapter, type SseEvent } from '#src/providers/provider-adapter.ts';
import { vendorProfile, type AiSdkFamily, type AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { AiSdkStreamState } from '#src/providers/ai-sdk/ai-sdk-stream-state.ts';
import { asksForThinking, convertFromAiSdkResult, formatWarning } from '#src/providers/ai-sdk/convert-from-ai-sdk-result.ts';
import { withServedSpeed } from '#src/providers/ai-sdk/convert-from-ai-sdk-usage.ts';
import { convertToAiSdkCallOptions, type AiSdkCallOptions, type TranslatableRequest } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';
import { createLanguageModel } from '#src/providers/ai-sdk/create-language-model.ts';
import { estimateInputTokens } from '#src/request/estimate-input-tokens.ts';
import { withoutGenerationFields } from '#src/request/generation-fields.ts';
import { mapAiSdkError } from '#src/providers/ai-sdk/map-ai-sdk-error.ts';
import { billedUsageOfResponsesError } from '#src/providers/ai-sdk/responses-billed-usage.ts';
import { upstreamErrorOfFailedResponse } from '#src/providers/ai-sdk/responses-failure.ts';
import { UpstreamError, type GatewayError } from '#src/errors.ts';
import { mapToolCallIds, restoreStreamToolCallId, restoreToolCallIds } from '#src/providers/ai-sdk/map-tool-call-ids.ts';
import { mapToolNames, restoreStreamToolName, restoreToolNames } from '#src/providers/ai-sdk/map-tool-names.ts';
import { placeToolResultFiles, readableFiles, toolResultFilePlacement } from '#src/providers/ai-sdk/place-tool-result-files.ts';
import type { ProviderQuirks } from '#src/catalog/catalog-types.ts';
import { withoutBillingHeader } from '#src/providers/ai-sdk/drop-billing-header.ts';
import { callSecrets } from '#src/providers/call-secrets.ts';
import { attachReasoningDetails, carryReasoningDetails, liftReasoningDetails, reasoningDetailsOfBody } from '#src/providers/ai-sdk/reasoning-details.ts';

/** Which AI SDK family the adapter speaks; per-provider settings (quirks, AWS signing) arrive with each call. */
export interface AiSdkAdapterOptions {
  family: AiSdkFamily;
}

const NO_QUIRKS: Readonly<ProviderQuirks> = Object.freeze({});
const NO_IDS: ReadonlyMap<string, string> = new Map();

/** One attempt made ready: call options, the model to call, and the vendor ids and tool names to give back as the client's. */
interface Prepared {
  callOptions: AiSdkCallOptions;
  warnings: string[];
  /** Whether the vendor returns OpenRouter's reasoning items, read from the raw answer (`reasoning-details.ts`). */
  reasoningDetails: boolean;
  /** The request's fields the vendor is not sent (empty when none). */
  dropped: string[];
  model: ReturnType<typeof createLanguageModel>;
  toClient: ReadonlyMap<string, string>;
  namesToClient: ReadonlyMap<string, string>;
}

/**
 * The call as a translated vendor gets it: without Claude Code's billing-header system block, which only
 * Anthropic reads (`drop-billing-header.ts`); the generation, its input estimate and a count all read this.
 */
function forVendor<T extends { request: Parameters<typeof withoutBillingHeader>[0] }>(call: T): T {
  const request = withoutBillingHeader(call.request);
  return request === call.request ? call : { ...call, request };
}

/** The `ProviderAdapter` of one AI SDK family. */
export function createAiSdkAdapter(options: AiSdkAdapterOptions): ProviderAdapter {
  const profile = vendorProfile(options.family);

  /** The translation of a call's request; what the vendor cannot express is the `UnsupportedFeatureError` naming it. */
  function convert(call: Pick<AttemptCall, 'quirks' | 'upstreamModel' | 'fast' | 'outputLimit'> & { request: TranslatableRequest }) {
    const quirks = call.quirks ?? NO_QUIRKS;
    const takesJsonSchema = options.family !== 'openai-compatible' || quirks.supportsStructuredOutputs === true;
    return convertToAiSdkCallOptions({ request: call.request, profile, upstreamModel: call.upstreamModel, fast: call.fast === true, outputLimit: call.outputLimit, takesJsonSchema });
  }

  function prepare(call: AttemptCall): Prepared {
    const quirks = call.quirks ?? NO_QUIRKS;
    const converted = convert(call);
    const inputs = { images: call.imageInput !== false, pdfs: call.pdfInput !== false };
    const placed = placeToolResultFiles(converted.value.prompt, toolResultFilePlacement(options.family, quirks), readableFiles(options.family, inputs));
    // OpenRouter's reasoning items, carried in thinking signatures, go back on their assistant messages.
    const prompt = quirks.reasoningDetails ? liftReasoningDetails(placed, call) : placed;
    const ids = quirks.toolCallIdMaxLength === undefined ? undefined : mapToolCallIds(prompt, quirks.toolCallIdMaxLength);
    // Names only a vendor stricter than Anthropic refuses (Claude Code's long MCP tool names) go as stand-ins.
    const names = mapToolNames({ ...converted.value, prompt: ids ? ids.prompt : prompt });
    // A stream's reasoning items come only in its raw chunks, which the package passes on when asked.
    const callOptions = quirks.reasoningDetails ? { ...names.callOptions, includeRawChunks: true } : names.callOptions;
    try {
      const { awsCredentials } = call;
      const model = createLanguageModel({
        family: options.family,
        provider: call.provider,
        baseUrl: call.baseUrl,
        key: call.key,
        upstreamModel: call.upstreamModel,
        ...(call.providerHeaders ? { providerHeaders: call.providerHeaders } : {}),
        quirks,
        ...(awsCredentials ? { awsCredentials } : {}),
      });
      return { callOptions, warnings: converted.warnings, dropped: converted.dropped, reasoningDetails: quirks.reasoningDetails === true, model, toClient: ids?.toClient ?? NO_IDS, namesToClient: names.toClient };
    } catch (error) {
      throw mapAiSdkError(error, call.provider);
    }
  }

  /**
   * The gateway error of a failed call. An OpenAI Responses answer that ended `failed` (a JSON body, or a
   * stream failing before output) is classified from the vendor's error code, and carries the usage it
   * reported: the vendor bills it, so the attempt is charged for it.
   */
  function callError(error: unknown, call: AttemptCall): GatewayError {
    const secrets = callSecrets(call);
    if (options.family !== 'openai-responses') return mapAiSdkError(error, call.provider, secrets);
    // A failed answer fails as its `error.code` says, not as the SDK's schema check or made-up status does.
    const mapped = upstreamErrorOfFailedResponse(error, call.provider, secrets) ?? mapAiSdkError(error, call.provider, secrets);
    if (mapped instanceof UpstreamError) mapped.billedUsage ??= billedUsageOfResponsesError(error);
    return mapped;
  }

  return {
    family: options.family,

    async generate(sent: AttemptCall): Promise<AdapterMessage> {
      const call = forVendor(sent);
      const { callOptions, warnings, dropped, reasoningDetails, model, toClient, namesToClient } = prepare(call);
      let result: Awaited<ReturnType<typeof model.doGenerate>>;
      try {
        result = await model.doGenerate({ ...callOptions, abortSignal: call.signal });
      } catch (error) {
        throw callError(error, call);
      }
      warnings.push(...result.warnings.map(formatWarning));
      const answered = reasoningDetails ? attachReasoningDetails(result.content, reasoningDetailsOfBody(result.response?.body), call) : result.content;
      const content = restoreToolNames(restoreToolCallIds(answered, toClient), namesToClient);
      const converted = convertFromAiSdkResult({
        result: { ...result, content },
        profile,
        provider: call.provider,
        upstreamModel: call.upstreamModel,
        estimateInput: () => estimateInputTokens(call.request),
        textSignatures: asksForThinking(call.request),
      });
      // What OpenAI says ran a fast call (`service_tier`): a priority call it sent to standard processing costs the standard prices.
      withServedSpeed(converted.value.usage, result.providerMetadata, profile.namespace, call.fast);
      const answer: AdapterMessage = { message: converted.value, warnings: [...warnings, ...converted.warnings] };
      if (dropped.length > 0) answer.droppedFields = dropped;
      return answer;
    },

    async stream(sent: AttemptCall): Promise<AdapterStream> {
      const call = forVendor(sent);
      const { callOptions, warnings, dropped, reasoningDetails, model, toClient, namesToClient } = prepare(call);
      // Aborted by the client's signal or when the consumer stops reading early, so the upstream is let go.
      const reading = new AbortController();
      let stream: ReadableStream<LanguageModelV4StreamPart>;
      try {
        // Resolves once the upstream answered with success headers; an HTTP error is thrown here, before any byte.
        ({ stream } = await model.doStream({ ...callOptions, abortSignal: AbortSignal.any([call.signal, reading.signal]) }));
      } catch (error) {
        // A stream that failed before its output (OpenAI's `response.failed` or `error` event) is thrown while
        // the SDK keeps reading the upstream to its end: an upstream that stalls then would hold the
        // connection for as long as it likes.
        reading.abort();
        throw callError(error, call);
      }
      if (reasoningDetails) stream = stream.pipeThrough(carryReasoningDetails(call));
      const answer: AdapterStream = { events: translateStream({ stream, profile, call, warnings, reading, toClient, namesToClient }), warnings };
      if (dropped.length > 0) answer.droppedFields = dropped;
      return answer;
    },

    async countTokens(sent) {
      // Counted as sent: without Claude Code's billing header, as a message would be.
      const call = forVendor(sent);
      // A count refuses what the message would (Anthropic's count_tokens does): the request is translated as
      // for a message, so a field, block or value this vendor cannot express is the same 400 and the plan moves
      // on. The fields that only shape a generation are left out, as on Anthropic's count_tokens.
      convert({ ...call, request: withoutGenerationFields(call.request) });
      return { input_tokens: estimateInputTokens(call.request) };
    },
  };
}

/**
 * How long a held OpenAI Responses failure waits for the AI SDK's `finish` part, which carries the usage the
 * vendor bills and comes only once the upstream closes the stream. OpenAI closes it right after
 * `response.failed` (the recorded `error` event is followed by it at once), so the wait normally ends at
 * once; an upstream that stalls instead gets this long, then the failure goes to the client (or the next
 * attempt, before any output) without the usage, and the upstream is let go.
 */
const FAILURE_USAGE_WAIT_MS = 200;

async function* translateStream(options: {
  stream: ReadableStream<LanguageModelV4StreamPart>;
  profile: AiSdkVendorProfile;
  call: Pick<AttemptCall, 'provider' | 'upstreamModel' | 'key' | 'awsCredentials' | 'providerHeaders' | 'request' | 'fast'>;
  warnings: string[];
  reading: AbortController;
  toClient: ReadonlyMap<string, string>;
  namesToClient: ReadonlyMap<string, string>;
}): AsyncGenerator<SseEvent> {
  const { stream, profile, call, warnings, reading, toClient, namesToClient } = options;
  const state = new AiSdkStreamState({ profile, provider: call.provider, upstreamModel: call.upstreamModel, estimateInput: () => estimateInputTokens(call.request), secrets: callSecrets(call), fast: call.fast === true });
  const reader = stream.getReader();
  let completed = false;
  // Set once a failure is held: resolves (with no part) when it has waited long enough for its usage.
  let usageWait: Promise<undefined> | undefined;
  let usageTimer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>> | undefined;
      try {
        const read = reader.read();
        if (usageWait === undefined) next = await read;
        else {
          // The read left pending when the wait wins fails once the reader is released; nobody needs to hear it.
          read.catch(() => undefined);
          next = await Promise.race([read, usageWait]);
        }
      } catch (error) {
        // A connection cut after the vendor said why it failed: its reason is the failure.
        throw state.heldFailure ?? mapAiSdkError(error, call.provider, callSecrets(call));
      }
      if (next === undefined) throw state.heldFailure as UpstreamError;
      if (next.done) break;
      let part = toClient.size === 0 ? next.value : restoreStreamToolCallId(next.value, toClient);
      if (namesToClient.size > 0) part = restoreStreamToolName(part, namesToClient);
      const events = state.push(part);
      if (state.warnings.length > 0) warnings.push(...state.warnings.splice(0));
      // A plain loop: `yield*` over an array wraps it in an async iterator for every part, events or not.
      for (const event of events) yield event;
      if (usageWait === undefined && state.heldFailure !== undefined) {
        usageWait = new Promise((resolve) => {
          usageTimer = setTimeout(resolve, FAILURE_USAGE_WAIT_MS, undefined);
        });
      }
    }
    for (const event of state.end()) yield event;
    completed = true;
  } finally {
    clearTimeout(usageTimer);
    // The consumer stopped early (client gone) or the translation failed: let the upstream go. Cancelling a
    // reader over a stalled body may never settle, so the request is aborted and the cancel not awaited.
    if (!completed) {
      reading.abort();
      void reader.cancel().catch(() => undefined);
    }
    reader.releaseLock();
  }
}
