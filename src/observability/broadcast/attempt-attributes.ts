/**
 * The attributes of one attempt's span: the inference call of the GenAI conventions (a CLIENT span), which
 * carries what that call itself reported: its provider and models, the upstream's address, and where known
 * its own usage (`gen_ai.usage.*`, marked `switchboard.usage.estimated` when the gateway estimated it), finish
 * reason and response id, so a trace shows what each call used rather than only the generation's totals. A
 * tool-loop step's span carries none of these: its served attempt is that step's inference call. Each also
 * carries what the request asked of every call (inference-request-attributes.ts: the conversation id, the
 * stream flag, the sampling parameters, the reasoning level). A failed attempt carries `error.type`, how it
 * failed, and no `switchboard.attempt.status`, which would say the same; its finish reason is `error`, as the
 * conventions ask where one was expected but none came (the call failed, was cancelled, or its stream ended
 * before the final event).
 * Nothing here is copied per attempt: the usage is the answer's, the step's or the failure's own object, read once.
 * @see https://github.com/open-telemetry/semantic-conventions-genai/blob/main/docs/gen-ai/client-inference.md
 */
import { isByok } from '#src/routing/attempt.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import type { AnswerUsage } from '#src/observability/generation-outcome.ts';
import { CHAT_OPERATION, genAiProviderName, type GatewaySpanAttributes } from '#src/observability/broadcast/genai-attributes.ts';
import { addInferenceRequestAttributes, type InferenceRequest } from '#src/observability/broadcast/inference-request-attributes.ts';

/** Token counts as an answer, a tool-loop step or a failed call reported them (cache counts may be null). */
export type ReportedUsage = Pick<AnswerUsage, 'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens' | 'output_tokens_details' | 'estimated'>;

/** What the call an attempt made answered: its usage, finish reason and response id, each where known. */
export interface AttemptAnswer {
  usage: ReportedUsage | null | undefined;
  finishReason: string | null | undefined;
  responseId?: string | null | undefined;
}

// One array each, shared by every span: the exporter only reads them.
const ERROR_FINISH: string[] = ['error'];
const REFUSAL_FINISH: string[] = ['refusal'];

// A catalog has a handful of base URLs: each is parsed once.
const servers = new Map<string, { address: string; port: number } | null>();

/** `server.address` and `server.port` of an upstream base URL (the host only: never a path or query). */
function serverOf(baseUrl: string): { address: string; port: number } | null {
  let server = servers.get(baseUrl);
  if (server !== undefined) return server;
  try {
    const url = new URL(baseUrl);
    const address = url.hostname.replace(/^\[(.*)\]$/, '$1');
    server = { address, port: url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443 };
  } catch {
    server = null;
  }
  if (servers.size < 1_000) servers.set(baseUrl, server);
  return server;
}

/**
 * Adds `usage` as GenAI usage attributes: input counts cache reads and writes too, as the conventions'
 * `gen_ai.usage.input_tokens` does (and the generation span); nothing when the call reported no counts. Counts
 * the gateway estimated (the vendor reported none) are marked, as the conventions have no name for that.
 */
export function addUsageAttributes(attributes: GatewaySpanAttributes, usage: ReportedUsage | null | undefined): void {
  if (!usage || (typeof usage.input_tokens !== 'number' && typeof usage.output_tokens !== 'number')) return;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  attributes['gen_ai.usage.input_tokens'] = (usage.input_tokens ?? 0) + cacheRead + cacheWrite;
  attributes['gen_ai.usage.output_tokens'] = usage.output_tokens ?? 0;
  attributes['gen_ai.usage.cache_read.input_tokens'] = cacheRead;
  attributes['gen_ai.usage.cache_write.input_tokens'] = cacheWrite;
  const reasoning = usage.output_tokens_details?.thinking_tokens;
  if (typeof reasoning === 'number' && reasoning > 0) attributes['gen_ai.usage.reasoning.output_tokens'] = reasoning;
  if (usage.estimated === true) attributes['switchboard.usage.estimated'] = true;
}

/**
 * The span attributes of `tried`, the `index`th attempt (0-based), which sent the request `shared` describes.
 * `answer` is what its call answered when it served the request or a tool-loop step; a failed attempt whose
 * vendor reported what it billed carries that, and a refusal the request moved on from what it reported.
 */
export function attemptSpanAttributes(tried: AttemptRecord, index: number, answer: AttemptAnswer | undefined, shared: InferenceRequest): GatewaySpanAttributes {
  const attributes: GatewaySpanAttributes = {
    'gen_ai.operation.name': CHAT_OPERATION,
    'gen_ai.provider.name': genAiProviderName(tried.attempt.provider.slug),
    // The vendor's own model id: what this call asked the provider for.
    'gen_ai.request.model': tried.attempt.upstreamModel,
    'switchboard.model': tried.attempt.model,
    'switchboard.attempt.index': index + 1,
    'switchboard.is_byok': isByok(tried.attempt),
  };
  addInferenceRequestAttributes(attributes, shared);
  // What this call was sent: the request's max_tokens lowered to its endpoint's output limit, where it was.
  if (tried.maxTokensSent !== undefined) attributes['gen_ai.request.max_tokens'] = tried.maxTokensSent;
  const server = serverOf(tried.attempt.baseUrl);
  if (server) {
    attributes['server.address'] = server.address;
    attributes['server.port'] = server.port;
  }
  if (tried.responseModel) attributes['gen_ai.response.model'] = tried.responseModel;
  if (tried.httpStatus !== null) attributes['http.response.status_code'] = tried.httpStatus;
  // What the vendor reported as the call failed is what it bills: that, rather than the counts heard before;
  // a refusal moved on from carries what it reported.
  addUsageAttributes(attributes, tried.billedUsage ?? tried.refusedUsage ?? answer?.usage);
  if (answer?.responseId) attributes['gen_ai.response.id'] = answer.responseId;
  // How a failed call failed is the conventions' `error.type`; the gateway's own name says only the rest.
  const failed = isFailedAttempt(tried);
  if (failed) attributes['error.type'] = tried.status;
  else attributes['switchboard.attempt.status'] = tried.status;
  // A reason the vendor gave stands (a stream may fail after its stop reason); a call that failed without one
  // ended abnormally, and a refusal the request moved on from has no answer here, but refused.
  if (answer?.finishReason) attributes['gen_ai.response.finish_reasons'] = [answer.finishReason];
  else if (failed) attributes['gen_ai.response.finish_reasons'] = ERROR_FINISH;
  else if (tried.status === 'refusal') attributes['gen_ai.response.finish_reasons'] = REFUSAL_FINISH;
  return attributes;
}

/** Whether the attempt failed (it neither answered nor refused). */
export function isFailedAttempt(tried: AttemptRecord): boolean {
  return tried.status !== 'success' && tried.status !== 'refusal';
}
