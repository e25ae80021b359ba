/**
 * Estimates input tokens for vendors without a count endpoint the AI SDK exposes. It is an estimate and says
 * so: about four characters of JSON-serialized prompt per token (the rule of thumb OpenAI and Anthropic both
 * publish for English), with binary sources priced by size rather than by their base64 text: an image at
 * 1,600 tokens (Anthropic's figure for a ~1.15 megapixel image) and a PDF at 1,500 tokens per 100 KB.
 */
import type { CountTokensRequest } from '#src/api-types.ts';

const CHARACTERS_PER_TOKEN = 4;
const IMAGE_TOKENS = 1600;
const PDF_TOKENS_PER_100_KB = 1500;

/** Estimated input tokens of a request's system prompt, messages and tools. */
export function estimateInputTokens(request: Pick<CountTokensRequest, 'system' | 'messages' | 'tools'>): number {
  let binaryTokens = 0;
  const serialized = JSON.stringify([request.system ?? '', request.messages, request.tools ?? []], function (this: unknown, key, value: unknown) {
    if (key !== 'source' || typeof value !== 'object' || value === null) return value;
    const source = value as { type?: string; media_type?: string; data?: string };
    if (source.type !== 'base64' && source.type !== 'url') return value;
    if ((this as { type?: unknown }).type === 'document') {
      const bytes = source.data ? Math.ceil((source.data.length * 3) / 4) : 100 * 1024;
      binaryTokens += Math.ceil((bytes / (100 * 1024)) * PDF_TOKENS_PER_100_KB);
    } else {
      binaryTokens += IMAGE_TOKENS;
    }
    return undefined;
  });
  return Math.ceil(serialized.length / CHARACTERS_PER_TOKEN) + binaryTokens;
}
