/**
 * Thinking signatures for translated vendors. Anthropic clients hand every thinking block back with its
 * `signature`; for a vendor reached through the AI SDK the signature is an envelope holding that vendor's own
 * replay material (OpenAI's encrypted reasoning item, Gemini's thought signature, Bedrock's reasoning
 * signature or redacted data) under the AI SDK namespace that produced it. On the next turn the envelope is
 * opened only for the same namespace, so material is never sent to a vendor that did not make it.
 */
import type { JSONObject, JSONValue } from '@ai-sdk/provider';

/** Marks a thinking signature the gateway wrapped around another vendor's reasoning data. */
export const GATEWAY_SIGNATURE_PREFIX = 'sbsig1_';
const PREFIX = GATEWAY_SIGNATURE_PREFIX;

/** What a signature envelope carries: the AI SDK provider namespace and that namespace's metadata. */
export interface ReasoningSignature {
  namespace: string;
  metadata: JSONObject;
  /**
   * The material belongs to the block right after the (empty) thinking block, which only carries it since
   * Anthropic's blocks have no field for it: `tool_use`, a tool call (Gemini signs function calls); `text`, a
   * text (Gemini signs the text of an answer).
   */
  target?: SignatureTarget;
}

/** The block kinds whose vendor signature rides a separate, empty thinking block. */
export type SignatureTarget = 'tool_use' | 'text';

const TARGETS: ReadonlySet<unknown> = new Set<SignatureTarget>(['tool_use', 'text']);

/** Wraps a vendor's reasoning metadata into an opaque signature string. */
export function encodeReasoningSignature(signature: ReasoningSignature): string {
  const payload = JSON.stringify({ n: signature.namespace, m: signature.metadata, ...(signature.target ? { t: signature.target } : {}) });
  return PREFIX + Buffer.from(payload, 'utf8').toString('base64url');
}

/** Opens a signature made by `encodeReasoningSignature`; anything else (e.g. Anthropic's own) gives `undefined`. */
export function decodeReasoningSignature(signature: string): ReasoningSignature | undefined {
  if (!signature.startsWith(PREFIX)) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(signature.slice(PREFIX.length), 'base64url').toString('utf8')) as unknown;
    if (!isObject(parsed) || typeof parsed.n !== 'string' || !isObject(parsed.m)) return undefined;
    return { namespace: parsed.n, metadata: parsed.m, ...(TARGETS.has(parsed.t) ? { target: parsed.t as SignatureTarget } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * The metadata of one namespace from an AI SDK `providerMetadata` record, or an empty object. Providers
 * that publish under two names (Bedrock: `amazonBedrock` and `bedrock`) are read under the one given.
 */
export function metadataFor(providerMetadata: Record<string, JSONObject> | undefined, namespace: string): JSONObject {
  return providerMetadata?.[namespace] ?? {};
}

/** Whether a record of reasoning metadata marks redacted reasoning (Bedrock `redactedData`). */
export function isRedactedReasoning(metadata: JSONObject): boolean {
  return typeof metadata.redactedData === 'string' || typeof metadata.redactedContent === 'string';
}

function isObject(value: unknown): value is Record<string, JSONValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The signature a vendor put on a part that is not reasoning (Gemini's `thoughtSignature` on a call or a text), if any. */
export function partSignature(providerMetadata: Record<string, JSONObject> | undefined, namespace: string): JSONObject | undefined {
  const signature = providerMetadata?.[namespace]?.thoughtSignature;
  return typeof signature === 'string' ? { thoughtSignature: signature } : undefined;
}
