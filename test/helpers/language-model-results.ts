/** Helpers for reading AI SDK language-model results (LanguageModelV4) in tests. */
import type { LanguageModelV4StreamPart, LanguageModelV4StreamResult } from '@ai-sdk/provider';

/** Reads an AI SDK language-model stream to its end and returns every part, in order. */
export async function collectStreamParts(result: LanguageModelV4StreamResult): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  const reader = result.stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

/** Concatenates the deltas of one kind of part (`text-delta`, `reasoning-delta` or `tool-input-delta`). */
export function joinDeltas(
  parts: readonly LanguageModelV4StreamPart[],
  type: 'text-delta' | 'reasoning-delta' | 'tool-input-delta',
): string {
  return parts.flatMap((part) => (part.type === type ? [part.delta] : [])).join('');
}

/** The parts of one type, narrowed, e.g. `partsOfType(parts, 'tool-call')`. */
export function partsOfType<Type extends LanguageModelV4StreamPart['type']>(
  parts: readonly LanguageModelV4StreamPart[],
  type: Type,
): Extract<LanguageModelV4StreamPart, { type: Type }>[] {
  return parts.filter((part): part is Extract<LanguageModelV4StreamPart, { type: Type }> => part.type === type);
}

/** The single `finish` part of a stream; throws when there is none. */
export function finishPart(
  parts: readonly LanguageModelV4StreamPart[],
): Extract<LanguageModelV4StreamPart, { type: 'finish' }> {
  const [finish] = partsOfType(parts, 'finish');
  if (finish === undefined) throw new Error(`stream ended without a finish part: ${parts.map((part) => part.type).join(', ')}`);
  return finish;
}

/** A one-message user prompt in the AI SDK's language-model prompt shape. */
export function userPrompt(text: string): [{ role: 'user'; content: [{ type: 'text'; text: string }] }] {
  return [{ role: 'user', content: [{ type: 'text', text }] }];
}

/**
 * What a call rejected with; fails the test when it resolves. Language-model methods return a `PromiseLike`
 * (no `.catch`), so tests await them through this.
 */
export async function rejectionOf(call: PromiseLike<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject, but it resolved');
}
