/**
 * OpenRouter's typed reasoning items (`reasoning_details`: `reasoning.text` with its signature,
 * `reasoning.summary`, `reasoning.encrypted`), which the models behind it (Claude, Gemini, OpenAI reasoning
 * models) need back unchanged, in order, on the assistant message of the next turn of a tool loop, or they lose
 * their reasoning state. The OpenAI-compatible package reads none of them, so the gateway does, for a provider
 * with the `reasoningDetails` quirk: a JSON answer's from its raw body, a stream's from its raw chunks (merged
 * as OpenRouter streams them). They travel in a thinking block's signature envelope (`reasoning-signature.ts`),
 * stamped with the provider and model that produced them, and on replay the items go back, in order, as the
 * assistant message's `reasoning_details` only when the call is to that same provider and model. Like
 * Anthropic's thinking signatures, they are one model's own state: after a fallback or a routing change
 * between turns, another model would reject them (a signature it cannot verify) or misread them (another
 * vendor's format), so it gets the reasoning text alone.
 * @see https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks
 */
import type { JSONObject, JSONValue, LanguageModelV4Content, LanguageModelV4Prompt, LanguageModelV4StreamPart, SharedV4ProviderMetadata } from '@ai-sdk/provider';

/** The key of the items in the OpenAI-compatible namespace of a reasoning part's metadata (and of its envelope). */
export const REASONING_DETAILS_KEY = 'reasoningDetails';

/** The key, beside the items, of the provider and model that produced them (`provider/upstream-model`). */
export const REASONING_DETAILS_ORIGIN_KEY = 'reasoningDetailsFrom';

/** The AI SDK namespace of the OpenAI-compatible package (its provider options and metadata). */
const NAMESPACE = 'openaiCompatible';

/** The call that produced (or will be sent) reasoning items: the catalog's provider slug and the vendor's model id. */
export interface ReasoningDetailsOrigin {
  provider: string;
  upstreamModel: string;
}

/** An origin as the one string it is stamped and compared as. */
function originStamp(origin: ReasoningDetailsOrigin): string {
  return `${origin.provider}/${origin.upstreamModel}`;
}

function isObject(value: unknown): value is JSONObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The items of a list as OpenRouter sends them, objects only (anything else is not an item to keep). */
function itemsOf(value: unknown): JSONObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** The `reasoning_details` of a Chat Completions JSON answer (its first choice's message). */
export function reasoningDetailsOfBody(body: unknown): JSONObject[] {
  const choice = isObject(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  return isObject(choice) && isObject(choice.message) ? itemsOf(choice.message.reasoning_details) : [];
}

/** The `reasoning_details` of one streamed chunk (its first choice's delta). */
export function reasoningDetailsOfChunk(chunk: unknown): JSONObject[] {
  const choice = isObject(chunk) && Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  return isObject(choice) && isObject(choice.delta) ? itemsOf(choice.delta.reasoning_details) : [];
}

// The string field a streamed item of each type arrives in pieces of.
const PIECE_FIELD: Readonly<Record<string, string>> = { 'reasoning.text': 'text', 'reasoning.summary': 'summary' };

/**
 * Adds one streamed chunk's items to those received so far, in place. A `reasoning.text` or
 * `reasoning.summary` item continuing the last one (same type, same `index` where both have one) has its piece
 * appended and the fields it brings filled in (the signature comes last); any other item (an encrypted one is
 * whole and opaque) is kept as it came.
 */
export function mergeReasoningDetails(received: JSONObject[], chunkItems: readonly JSONObject[]): void {
  for (const item of chunkItems) {
    const last = received.at(-1);
    const field = typeof item.type === 'string' ? PIECE_FIELD[item.type] : undefined;
    const continues = field !== undefined && last !== undefined && last.type === item.type && (last.index === undefined || item.index === undefined || last.index === item.index);
    if (!continues) {
      received.push({ ...item });
      continue;
    }
    for (const [key, value] of Object.entries(item)) {
      if (key === field) last[key] = `${typeof last[key] === 'string' ? last[key] : ''}${typeof value === 'string' ? value : ''}`;
      else if ((last[key] === undefined || last[key] === null || last[key] === '') && value !== undefined) last[key] = value;
    }
  }
}

/** A part's provider metadata with the items, and where they came from, added in the OpenAI-compatible namespace. */
function withItems(metadata: SharedV4ProviderMetadata | undefined, items: JSONObject[], origin: ReasoningDetailsOrigin): SharedV4ProviderMetadata {
  return { ...metadata, [NAMESPACE]: { ...metadata?.[NAMESPACE], [REASONING_DETAILS_KEY]: items, [REASONING_DETAILS_ORIGIN_KEY]: originStamp(origin) } };
}

/**
 * A JSON answer's content with its items on its first reasoning part, or, when it has none (the model's
 * reasoning is encrypted only), on an empty reasoning part ahead of everything (a thinking block with the
 * items in its signature, as Anthropic's thinking comes first).
 */
export function attachReasoningDetails(content: readonly LanguageModelV4Content[], items: JSONObject[], origin: ReasoningDetailsOrigin): LanguageModelV4Content[] {
  if (items.length === 0) return [...content];
  const first = content.findIndex((part) => part.type === 'reasoning');
  if (first === -1) return [{ type: 'reasoning', text: '', providerMetadata: withItems(undefined, items, origin) }, ...content];
  return content.map((part, index) => (index === first && part.type === 'reasoning' ? { ...part, providerMetadata: withItems(part.providerMetadata, items, origin) } : part));
}

/**
 * Carries a stream's items to its thinking blocks, reading the raw chunks the package passes on (asked with
 * `includeRawChunks`, then dropped here). Items received go on the reasoning part that ends next; items not
 * taken when a text or a tool call starts ride an empty reasoning part just before it (the model's reasoning
 * was encrypted only, or came apart from its text). Items left at the end ride one after the tool calls of a
 * tool-calling turn, which must hand them back; after a final text they are not kept (a thinking block after
 * the text would hide it from clients that print the last block, and no tool loop needs them).
 */
export function carryReasoningDetails(origin: ReasoningDetailsOrigin): TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart> {
  let received: JSONObject[] = [];
  let carriers = 0;
  let calledTools = false;
  // Calls that streamed (`tool-input-start`); one arriving whole gets its carrier at its `tool-call`.
  const started = new Set<string>();
  const take = (): JSONObject[] => {
    const items = received;
    received = [];
    return items;
  };
  const carrier = (controller: TransformStreamDefaultController<LanguageModelV4StreamPart>): void => {
    const id = `reasoning-details-${++carriers}`;
    controller.enqueue({ type: 'reasoning-start', id });
    controller.enqueue({ type: 'reasoning-end', id, providerMetadata: withItems(undefined, take(), origin) });
  };
  return new TransformStream({
    transform(part, controller) {
      switch (part.type) {
        case 'raw':
          mergeReasoningDetails(received, reasoningDetailsOfChunk(part.rawValue));
          return;
        case 'reasoning-end':
          if (received.length > 0) {
            controller.enqueue({ ...part, providerMetadata: withItems(part.providerMetadata, take(), origin) });
            return;
          }
          break;
        case 'text-start':
          if (received.length > 0) carrier(controller);
          break;
        case 'tool-input-start':
          calledTools = true;
          started.add(part.id);
          if (received.length > 0) carrier(controller);
          break;
        case 'tool-call':
          calledTools = true;
          if (received.length > 0 && !started.has(part.toolCallId)) carrier(controller);
          break;
        case 'finish':
          if (received.length > 0 && calledTools) carrier(controller);
          break;
        default:
          break;
      }
      controller.enqueue(part);
    },
  });
}

/**
 * Whether a reasoning part's items may go to the call: made by its provider and model. Items stamped by
 * another are left out; unstamped ones (carried before the stamp existed) go as they always did.
 */
function madeFor(options: JSONObject | undefined, to: string): boolean {
  const from = options?.[REASONING_DETAILS_ORIGIN_KEY];
  return typeof from !== 'string' || from === to;
}

/**
 * The prompt with each assistant message's items, gathered from its reasoning parts in order, as that
 * message's `reasoning_details` (the package writes an assistant message's OpenAI-compatible options into it).
 * Only the items `origin` (the provider and model called) produced go; another model's are left out.
 */
export function liftReasoningDetails(prompt: LanguageModelV4Prompt, origin: ReasoningDetailsOrigin): LanguageModelV4Prompt {
  const to = originStamp(origin);
  return prompt.map((message) => {
    if (message.role !== 'assistant') return message;
    const items: JSONValue[] = [];
    for (const part of message.content) {
      const options = part.type === 'reasoning' ? part.providerOptions?.[NAMESPACE] : undefined;
      if (madeFor(options, to)) items.push(...itemsOf(options?.[REASONING_DETAILS_KEY]));
    }
    if (items.length === 0) return message;
    const options = message.providerOptions;
    return { ...message, providerOptions: { ...options, [NAMESPACE]: { ...options?.[NAMESPACE], reasoning_details: items } } };
  });
}
