/**
 * Cost in USD of one request, from its token usage and the serving endpoint's prices. Pure functions.
 *
 * Usage is normalized to Anthropic's convention first: `inputTokens` excludes cache reads and cache writes,
 * which are counted separately. OpenAI and Gemini report prompt tokens *including* cached ones; convert those
 * with `usageFromInclusivePrompt` (or `usageFromLanguageModelUsage` for AI SDK results) before pricing, or cached
 * tokens are billed twice. Reasoning (thinking) tokens are output tokens.
 *
 * Rounding: none. The result keeps full double precision (the sum of tokens x price per million, divided by a
 * million once); round only for display. Compare costs in tests with a tolerance.
 */
import type { LanguageModelV4Usage } from '@ai-sdk/provider';
import type { CatalogEndpoint, LongContextPricing, Pricing } from './catalog-types.ts';
import { withoutDateSuffix } from './model-id.ts';

/** Token counts in Anthropic's convention. */
export interface TokenUsage {
  /** Uncached input tokens (excludes cache reads and writes). */
  inputTokens: number;
  /** Output tokens, reasoning included. */
  outputTokens: number;
  /** Input tokens read from the prompt cache. */
  cacheReadTokens: number;
  /** Input tokens written to the prompt cache, every lifetime together. */
  cacheWriteTokens: number;
  /** The part of `cacheWriteTokens` written with a one-hour lifetime (priced at `cache_write_1h`). */
  cacheWrite1hTokens?: number;
  /**
   * The part of `cacheWriteTokens` written with a lifetime the prices do not name (one Anthropic added after
   * `5m` and `1h`): priced at the dearest write price, so a key's limits are never under-charged.
   */
  cacheWriteUnknownTokens?: number;
}

/** `speed` of a message request. */
export type Speed = 'fast' | 'standard' | null | undefined;

/**
 * The prices a request pays on an endpoint: the `fast` variant's for `speed: fast`, else the standard ones.
 * null when `fast` is asked for and the endpoint has no fast variant (the routing plan decides what that means).
 */
export function selectPricing(endpoint: Pick<CatalogEndpoint, 'pricing' | 'fast'>, speed: Speed): Pricing | null {
  if (speed !== 'fast') return endpoint.pricing;
  return endpoint.fast?.pricing ?? null;
}

/**
 * Every token price of a list times `factor`, the long-context tier's too: a provider's surcharge on the list
 * prices (Bedrock's in-region inference profiles of Claude 4.5 and later cost 10% more than the global
 * profile). A per-search fee is not a token price and stays as it is.
 */
export function scalePricing(pricing: Readonly<Pricing>, factor: number): Pricing {
  const scaled: Pricing = { ...pricing, ...scaleRates(pricing, factor) };
  if (pricing.long_context) scaled.long_context = { ...pricing.long_context, ...scaleRates(pricing.long_context, factor) };
  return scaled;
}

function scaleRates(rates: Readonly<Pricing | LongContextPricing>, factor: number): Pick<Pricing, 'input' | 'output' | 'cache_read' | 'cache_write' | 'cache_write_1h'> {
  const scale = (rate: number | null | undefined): number | null => (typeof rate === 'number' ? rate * factor : null);
  const scaled = { input: rates.input * factor, output: rates.output * factor, cache_read: scale(rates.cache_read), cache_write: scale(rates.cache_write) };
  return rates.cache_write_1h === undefined ? scaled : { ...scaled, cache_write_1h: scale(rates.cache_write_1h) };
}

function checkCount(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative finite number, got ${value}`);
}

/** The rates that apply: the long-context tier's when the prompt (input + cache reads + writes) exceeds it. */
function ratesFor(pricing: Pricing, promptTokens: number): Pricing | LongContextPricing {
  const longContext = pricing.long_context;
  return longContext && promptTokens > longContext.threshold_tokens ? longContext : pricing;
}

/**
 * Cost in USD. A cache price that is null costs the input price (the vendor bills those tokens as plain input);
 * a missing one-hour write price costs the default write price; a write of a lifetime the prices do not name
 * costs the dearer of the two write prices.
 */
export function computeCost(usage: TokenUsage, pricing: Pricing): number {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = usage;
  const cacheWrite1hTokens = usage.cacheWrite1hTokens ?? 0;
  const cacheWriteUnknownTokens = usage.cacheWriteUnknownTokens ?? 0;
  // Five calls rather than a loop over `Object.entries({ … })`: that is a runtime call and an array per count,
  // twice per request (callgrind).
  checkCount('inputTokens', inputTokens);
  checkCount('outputTokens', outputTokens);
  checkCount('cacheReadTokens', cacheReadTokens);
  checkCount('cacheWriteTokens', cacheWriteTokens);
  checkCount('cacheWrite1hTokens', cacheWrite1hTokens);
  if (cacheWriteUnknownTokens !== 0) checkCount('cacheWriteUnknownTokens', cacheWriteUnknownTokens);
  if (cacheWrite1hTokens + cacheWriteUnknownTokens > cacheWriteTokens) throw new RangeError('cacheWrite1hTokens and cacheWriteUnknownTokens cannot exceed cacheWriteTokens');
  const rates = ratesFor(pricing, inputTokens + cacheReadTokens + cacheWriteTokens);
  const cacheWriteRate = rates.cache_write ?? rates.input;
  const cacheWrite1hRate = rates.cache_write_1h ?? cacheWriteRate;
  const microDollars =
    inputTokens * rates.input +
    outputTokens * rates.output +
    cacheReadTokens * (rates.cache_read ?? rates.input) +
    (cacheWriteTokens - cacheWrite1hTokens - cacheWriteUnknownTokens) * cacheWriteRate +
    cacheWrite1hTokens * cacheWrite1hRate +
    cacheWriteUnknownTokens * Math.max(cacheWriteRate, cacheWrite1hRate);
  return microDollars / 1_000_000;
}

/** Anthropic's wire usage (`usage` of a message or `message_delta`). */
export interface AnthropicUsageFields {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: CacheCreation | null;
  /** Usage per sampling iteration, when Anthropic ran more than the answer (compaction, an advisor, a fallback). */
  iterations?: readonly AnthropicIterationUsage[] | null;
  /** Calls of Anthropic's own server tools; `web_search_requests` is billed per search. */
  server_tool_use?: { web_search_requests?: number | null } | null;
  /** A searching vendor's search context size for the request (Perplexity's), billed per request. */
  search_context_size?: string | null;
  /** The speed Anthropic served at (`fast`, `standard`): it picks the prices (routing/attempt.ts servedPricing), not read here. */
  speed?: string | null;
}

/** One entry of Anthropic's `usage.iterations`. */
export interface AnthropicIterationUsage {
  type?: string;
  /** The vendor's id of the model that ran it (`advisor_message`, `fallback_message`, a refused `message`). */
  model?: unknown;
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: CacheCreation | null;
}

/**
 * Anthropic's cache writes by lifetime (`usage.cache_creation`). A lifetime Anthropic adds would come under a
 * key of its own; the gateway reads it as the written tokens neither known key holds.
 */
export interface CacheCreation {
  ephemeral_5m_input_tokens?: number;
  ephemeral_1h_input_tokens?: number;
}

/**
 * The written tokens `cache_creation` puts under no known lifetime: what is left of `written` past its
 * five-minute and one-hour counts, when it gives a five-minute count (an answer without the split, or with
 * only the one-hour count, is read as five-minute writes besides the one-hour ones, as before).
 */
function unknownLifetimeWrites(creation: CacheCreation | null | undefined, written: number, oneHour: number): number {
  const fiveMinutes = creation?.ephemeral_5m_input_tokens;
  if (typeof fiveMinutes !== 'number') return 0;
  return Math.max(0, written - count(fiveMinutes) - oneHour);
}

/**
 * The vendor's fee for the searches its own web search tool ran: per search, whatever the prompt's length.
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool (usage and pricing)
 */
export function serverToolFees(serverToolUse: AnthropicUsageFields['server_tool_use'], pricing: Pricing): number {
  const perSearch = pricing.web_search_request;
  if (typeof perSearch !== 'number' || !serverToolUse) return 0;
  return count(serverToolUse.web_search_requests) * perSearch;
}

/**
 * A searching vendor's fee for the request itself, by the search context size it reported: Perplexity's Sonar
 * models bill every request by `low`, `medium` or `high` context, `low` (its default) when none is reported.
 * @see https://docs.perplexity.ai/getting-started/pricing (request fees)
 * @see https://docs.perplexity.ai/guides/search-context-size-guide
 */
export function searchRequestFee(searchContextSize: string | null | undefined, pricing: Pricing): number {
  const fees = pricing.search_request;
  if (!fees) return 0;
  return searchContextSize === 'medium' || searchContextSize === 'high' ? fees[searchContextSize] : fees.low;
}

/** List prices by the vendor's model id, for usage an upstream reports per model (`usage.iterations[].model`). */
export type PricingByModel = ReadonlyMap<string, Readonly<Pricing>>;

/**
 * Cost in USD of an Anthropic-convention usage: the answer's own counts, plus each iteration Anthropic bills
 * beside them, plus the fee of Anthropic's web searches ({@link serverToolFees}) and a searching vendor's
 * per-request fee ({@link searchRequestFee}). Each iteration is priced as a
 * request of its own, so a long-context tier applies to the prompt that iteration read.
 * - `compaction` (server-side compaction's summary before the answer) and `advisor_message` (the advisor
 *   tool's sub-inference) are left out of the top-level counts, which are the answer's `message` iterations:
 *   each is added, an advisor's at its own model's prices.
 * - `fallback_message` (Anthropic's server-side fallback served the answer): the top-level counts are that
 *   iteration's, on another model than the one asked for, and the refused model's `message` iteration is not
 *   in them: every iteration is then priced on its own, each at its model's prices.
 * An iteration's model is looked up in `byModel` (the serving provider's endpoints by upstream model id); one
 * the catalog does not list is priced at `pricing`, the requested endpoint's.
 * @see https://platform.claude.com/docs/en/build-with-claude/compaction
 * @see node_modules/@anthropic-ai/sdk/resources/beta/messages/messages.d.ts (BetaIterationsUsage)
 */
export function computeAnthropicCost(usage: AnthropicUsageFields, pricing: Pricing, byModel?: PricingByModel): number {
  const fees = serverToolFees(usage.server_tool_use, pricing) + searchRequestFee(usage.search_context_size, pricing);
  const iterations = usage.iterations;
  if (!Array.isArray(iterations)) return computeCost(usageFromAnthropic(usage), pricing) + fees;
  const servedByFallback = iterations.some((iteration) => iteration?.type === 'fallback_message');
  let cost = (servedByFallback ? 0 : computeCost(usageFromAnthropic(usage), pricing)) + fees;
  for (const iteration of iterations) {
    if (!iteration) continue;
    if (!servedByFallback && iteration.type !== 'compaction' && iteration.type !== 'advisor_message') continue;
    cost += computeCost(iterationUsage(iteration), pricingOf(iteration.model, pricing, byModel));
  }
  return cost;
}

// The prices of an iteration's model: the catalog's for that model id (also without a `-YYYYMMDD` suffix), else
// the requested endpoint's.
function pricingOf(model: unknown, pricing: Pricing, byModel: PricingByModel | undefined): Pricing {
  if (typeof model !== 'string' || !byModel) return pricing;
  return byModel.get(model) ?? byModel.get(withoutDateSuffix(model)) ?? pricing;
}

function iterationUsage(iteration: AnthropicIterationUsage): TokenUsage {
  const cacheWriteTokens = count(iteration.cache_creation_input_tokens);
  const cacheWrite1hTokens = Math.min(count(iteration.cache_creation?.ephemeral_1h_input_tokens), cacheWriteTokens);
  return {
    inputTokens: count(iteration.input_tokens),
    outputTokens: count(iteration.output_tokens),
    cacheReadTokens: count(iteration.cache_read_input_tokens),
    cacheWriteTokens,
    cacheWrite1hTokens,
    cacheWriteUnknownTokens: unknownLifetimeWrites(iteration.cache_creation, cacheWriteTokens, cacheWrite1hTokens),
  };
}

// A count the vendor sent as it should, else 0: an iteration is read from the upstream's JSON as it came.
function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** Normalizes Anthropic's usage (already in the right convention; this only fills the cache fields). */
export function usageFromAnthropic(usage: AnthropicUsageFields): TokenUsage {
  const cacheWriteTokens = usage.cache_creation_input_tokens ?? 0;
  const cacheWrite1hTokens = Math.min(usage.cache_creation?.ephemeral_1h_input_tokens ?? 0, cacheWriteTokens);
  const usageOfAnswer: TokenUsage = {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens,
    cacheWrite1hTokens,
  };
  // Only when something was written: the usual answer pays one comparison.
  if (cacheWriteTokens > 0) {
    const unknown = unknownLifetimeWrites(usage.cache_creation, cacheWriteTokens, cacheWrite1hTokens);
    if (unknown > 0) usageOfAnswer.cacheWriteUnknownTokens = unknown;
  }
  return usageOfAnswer;
}

/**
 * Normalizes usage whose prompt count *includes* cached tokens (OpenAI `prompt_tokens` with
 * `prompt_tokens_details.cached_tokens`; Gemini `promptTokenCount` with `cachedContentTokenCount`). Output must
 * already include reasoning (OpenAI's `completion_tokens` does; for Gemini add `thoughtsTokenCount`).
 */
export function usageFromInclusivePrompt(usage: { promptTokens: number; cachedTokens?: number; cacheWriteTokens?: number; outputTokens: number }): TokenUsage {
  const cacheReadTokens = usage.cachedTokens ?? 0;
  const cacheWriteTokens = usage.cacheWriteTokens ?? 0;
  return {
    inputTokens: Math.max(0, usage.promptTokens - cacheReadTokens - cacheWriteTokens),
    outputTokens: usage.outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
  };
}

/** Normalizes an AI SDK language-model usage (`doGenerate`/`doStream` finish), whose totals include cache and reasoning. */
export function usageFromLanguageModelUsage(usage: LanguageModelV4Usage): TokenUsage {
  const cacheReadTokens = usage.inputTokens.cacheRead ?? 0;
  const cacheWriteTokens = usage.inputTokens.cacheWrite ?? 0;
  const inputTokens = usage.inputTokens.noCache ?? Math.max(0, (usage.inputTokens.total ?? 0) - cacheReadTokens - cacheWriteTokens);
  const outputTokens = usage.outputTokens.total ?? (usage.outputTokens.text ?? 0) + (usage.outputTokens.reasoning ?? 0);
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
}
