/**
 * The answer after refusals, as Anthropic's server-side fallback gives it: each refused model's content, then
 * a `fallback` block marking where the next model goes on, then the serving model's content. Anthropic's SDKs
 * and a client's next turn read the block to know which model produced what. Pure functions.
 * @see node_modules/@anthropic-ai/sdk/resources/beta/messages/messages.d.ts (BetaFallbackBlock)
 */
import type { FallbackBlock, MessageResponse, ResponseContentBlock } from '#src/api-types.ts';

/** A model that answered with a refusal before the request moved on to the next model. */
export interface RefusedHop {
  /** The gateway slug of the refused attempt's model. */
  model: string;
  /** What it produced before refusing (usually nothing). */
  content: readonly ResponseContentBlock[];
  /** `stop_details.category` of the refusal; null when the vendor named none. */
  category: string | null;
}

/** The refused hop of an answer: its model, content and category. */
export function refusedHopOf(model: string, message: Pick<MessageResponse, 'content' | 'stop_details'>): RefusedHop {
  const category = message.stop_details?.category;
  return { model, content: message.content, category: typeof category === 'string' ? category : null };
}

/** The block that marks the hop from a refused model to the next one. */
export function fallbackBlock(from: string, to: string, category: string | null): FallbackBlock {
  return { type: 'fallback', from: { model: from }, to: { model: to }, trigger: { type: 'refusal', category } };
}

/**
 * The blocks that go before the served model's content: each refused model's content and a `fallback` block
 * to the next model (the last one to `servedModel`). A tool loop puts them where its step's content begins.
 */
export function refusedHopBlocks(hops: readonly RefusedHop[], servedModel: string): ResponseContentBlock[] {
  const content: ResponseContentBlock[] = [];
  hops.forEach((hop, index) => {
    content.push(...hop.content, fallbackBlock(hop.model, hops[index + 1]?.model ?? servedModel, hop.category));
  });
  return content;
}

/**
 * The served message with the hops before it (`refusedHopBlocks`), then the message's own content. No hops,
 * the message itself.
 */
export function withRefusedHops(message: MessageResponse, hops: readonly RefusedHop[], servedModel: string): MessageResponse {
  if (hops.length === 0) return message;
  return { ...message, content: [...refusedHopBlocks(hops, servedModel), ...message.content] };
}
