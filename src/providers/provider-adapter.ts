/**
 * The contract between the attempt runner and the code that talks to one upstream API family. An adapter
 * knows how to send one Anthropic-format request to one endpoint with one key and give back an
 * Anthropic-format message or event stream. It knows nothing of fallbacks, stickiness or BYOK selection:
 * those live above it, in the routing plan and the attempt runner.
 */
import type { MessageRequest, MessageResponse, MessageStreamEvent, CountTokensRequest, CountTokensResponse } from '#src/api-types.ts';
import type { ResidencyRegion } from '#src/data-region.ts';
import type { ProviderQuirks } from '#src/catalog/catalog-types.ts';
import type { AwsSigningCredentials } from '#src/providers/ai-sdk/create-language-model.ts';
import { UpstreamSseEvent } from '#src/providers/upstream-sse-event.ts';

/** The upstream API families the gateway speaks. */
export type ApiFamily =
  | 'anthropic'
  | 'openai-chat'
  | 'openai-responses'
  | 'openai-compatible'
  | 'google'
  | 'bedrock'
  | 'azure';

/** A provider key as stored: a plain string, or for openai and fireworks an object naming its region. */
export type ProviderKey = string | { api_key: string; region: ResidencyRegion };

/** The secret a provider key sends: the string itself, or a region-bound key's `api_key`. */
export function apiKeyOf(key: ProviderKey | undefined): string | undefined {
  return typeof key === 'string' ? key : key?.api_key;
}

/** Everything an adapter needs for one attempt. Built fresh per attempt from the original validated request. */
export interface AttemptCall {
  /** The client's validated request, never mutated. Gateway-only fields are the adapter's to drop. */
  request: MessageRequest;
  /** Provider slug, e.g. `anthropic`, `groq`. */
  provider: string;
  family: ApiFamily;
  /** Base URL of the upstream API (already resolved for region and config overrides). */
  baseUrl: string;
  /** The vendor's own model id, e.g. `claude-sonnet-4-5`. */
  upstreamModel: string;
  /** The decrypted key for this attempt (BYOK or the gateway's shared key); never logged. */
  key: ProviderKey | undefined;
  /**
   * Client headers an Anthropic-format upstream understands (`anthropic-version`, `anthropic-beta`, and on a
   * call with the caller's own key `anthropic-workspace-id` and `anthropic-user-profile-id`).
   */
  forwardHeaders: Record<string, string>;
  /** Extra static headers the provider preset asks for. */
  providerHeaders?: Record<string, string>;
  /** The provider's quirks (preset merged with configuration); absent: none. */
  quirks?: Readonly<ProviderQuirks>;
  /** Bedrock without an API key: the configured AWS key pair, revealed for this call, to sign with SigV4. */
  awsCredentials?: AwsSigningCredentials;
  /** Aborted when the client disconnects or the request's time budget runs out. */
  signal: AbortSignal;
  /**
   * Run the endpoint's fast variant (`speed: fast`): Anthropic's fast mode, OpenAI's priority processing.
   * Only planned where the catalog lists a fast variant.
   */
  fast?: boolean;
  /** The endpoint's largest `max_tokens` (catalog `max_output_tokens`); absent when unknown. */
  outputLimit?: number;
  /** Whether the endpoint reads images (catalog `vision`); absent: it does. */
  imageInput?: boolean;
  /** Whether the endpoint reads PDF documents (catalog `pdf`); absent: it does. */
  pdfInput?: boolean;
}

/** A server-sent event as an Anthropic-format upstream sent it: its name and its data, kept as text. */
export interface RawSseEvent {
  event: string;
  /** The raw JSON of the `data:` line(s), parsed only where the gateway must amend or read the event. */
  data: string;
  /**
   * The event's bytes exactly as the upstream sent them, blank line included (src/providers/sse-reader.ts):
   * written to the client as they are, so an event whose data the gateway changes is a new object without
   * them. Absent, the event is framed from its name and data.
   */
  raw?: Uint8Array;
}

/**
 * One event of an Anthropic-format stream on its way to the client: an upstream's event still as text (parsed
 * only when the gateway amends it), or an event the gateway built or amended, as a spec-typed object that the
 * SSE writer serialises once.
 * @see MessageStreamEvent in openapi/components/schemas/stream-events.yaml
 */
export type SseEvent = RawSseEvent | MessageStreamEvent;

/** Whether the event is still an upstream's text. */
export function isRawSseEvent(event: SseEvent): event is RawSseEvent {
  return 'data' in event;
}

/**
 * The event's payload as a typed object: a typed event as it is, an upstream's raw event parsed from its data.
 * Parse only where the payload is needed; a raw event otherwise passes on as its bytes. The caller may change
 * what it gets from a raw event: no other reader holds it.
 */
export function eventPayload<T>(event: SseEvent): T {
  if (!isRawSseEvent(event)) return event as T;
  return (event instanceof UpstreamSseEvent ? event.takePayload() : JSON.parse(event.data)) as T;
}

/**
 * The event's payload, for a reader that only looks at it and must not change it: an upstream's event is
 * parsed once for every such reader and for the first `eventPayload` after them, where each read was a parse.
 */
export function peekEventPayload<T>(event: SseEvent): T {
  if (!isRawSseEvent(event)) return event as T;
  return (event instanceof UpstreamSseEvent ? event.peekPayload() : JSON.parse(event.data)) as T;
}

/** The event's name: the SSE `event:` field, which for a typed event is its `type`. */
export function sseEventName(event: SseEvent): string {
  return 'data' in event ? event.event : event.type;
}

/** A non-streaming answer: the message in Anthropic's format, usage in Anthropic's convention, cost not yet set. */
export interface AdapterMessage {
  message: MessageResponse;
  warnings: string[];
  /**
   * Field paths of the request a translated vendor was not sent, having no counterpart (sorted, distinct,
   * array indexes as `[]`); absent when none were, and always on Anthropic-format adapters.
   */
  droppedFields?: readonly string[];
  /** The upstream's response headers as received (Anthropic-format adapters): read only for a caller's own key. */
  upstreamHeaders?: UpstreamHeaders;
}

/** Response headers as the upstream sent them (undici's shape). */
export type UpstreamHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * A streaming answer. `events` yields Anthropic SSE events in order; the adapter resolves `stream()` only
 * once the upstream has answered with success headers, so a failure before that is still a failover.
 */
export interface AdapterStream {
  events: AsyncIterable<SseEvent>;
  warnings: string[];
  /** As AdapterMessage's. */
  droppedFields?: readonly string[];
  /** As AdapterMessage's. */
  upstreamHeaders?: UpstreamHeaders;
}

/** One upstream API family. */
export interface ProviderAdapter {
  readonly family: ApiFamily;
  generate(call: AttemptCall): Promise<AdapterMessage>;
  stream(call: AttemptCall): Promise<AdapterStream>;
  /**
   * Counts input tokens: a vendor count endpoint's answer as it came (every field kept), or, without one,
   * the gateway's estimate.
   */
  countTokens(call: Omit<AttemptCall, 'request'> & { request: CountTokensRequest }): Promise<CountTokensResponse>;
}
