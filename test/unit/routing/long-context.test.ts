import { describe, expect, it } from 'vitest';
import { loadCatalog } from '#src/catalog/index.ts';
import { attemptContextLength, requestsLongContext } from '#src/routing/long-context.ts';

const catalog = loadCatalog({ env: {} });

function endpoint(model: string, provider: string) {
  const found = catalog.models.find((candidate) => candidate.slug === model)?.endpoints.find((candidate) => candidate.provider.slug === provider);
  if (!found) throw new Error(`no endpoint ${model}@${provider}`);
  return found;
}

describe('requestsLongContext', () => {
  it.each<[string | undefined, boolean]>([
    [undefined, false],
    ['context-1m-2025-08-07', true],
    ['interleaved-thinking-2025-05-14,context-1m-2025-08-07', true],
    ['interleaved-thinking-2025-05-14, context-1m-2025-08-07 ', true],
    ['interleaved-thinking-2025-05-14', false],
    ['context-1m-2025-08-07-preview', false],
  ])('anthropic-beta %j → %s', (beta, expected) => {
    expect(requestsLongContext(beta === undefined ? {} : { 'anthropic-beta': beta })).toBe(expected);
  });
});

describe('attemptContextLength', () => {
  it.each<[string, string, boolean, number | null]>([
    ['anthropic/claude-sonnet-4.5', 'anthropic', true, 1_000_000],
    ['anthropic/claude-sonnet-4.5', 'anthropic', false, 200_000],
    // Bedrock is reached by translation: the beta header does not go there.
    ['anthropic/claude-sonnet-4.5', 'bedrock', true, 200_000],
    // No long-context prices: the model has no long window.
    ['anthropic/claude-haiku-4.5', 'anthropic', true, 200_000],
    ['openai/gpt-5', 'openai', true, 400_000],
  ])('%s on %s, beta %s → %s', (model, provider, longContext, expected) => {
    expect(attemptContextLength(endpoint(model, provider), longContext)).toBe(expected);
  });
});
