/**
 * What a request counts against its key's limits, before and after: the worst case it reserves before it is
 * sent, and the usage it settles to once its answer is known. Pure functions.
 */
import type { MessageRequest } from '#src/api-types.ts';
import { computeCost } from '#src/catalog/pricing.ts';
import type { Pricing } from '#src/catalog/catalog-types.ts';
import { estimateInputTokens } from '#src/request/estimate-input-tokens.ts';
import type { AnswerUsage } from '#src/observability/generation-outcome.ts';

/** A cost in USD and a number of tokens (input plus output, cache reads and writes included). */
export interface UsageAmounts {
  cost: number;
  tokens: number;
}

/** What the worst case reads of a request. */
export type WorstCaseRequest = Pick<MessageRequest, 'system' | 'messages' | 'tools' | 'max_tokens' | 'context_management'>;

/**
 * The searches Anthropic's web search tools (`web_search_20250305`, …) may run: the sum of their `max_uses`.
 * A tool without `max_uses` has no bound the request states, so adds nothing (the keys spec says so).
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool (max_uses)
 */
function boundedSearches(tools: WorstCaseRequest['tools']): number {
  let searches = 0;
  for (const tool of tools ?? []) {
    const { type, max_uses: maxUses } = tool as { type?: unknown; max_uses?: unknown };
    if (typeof type !== 'string' || !type.startsWith('web_search_')) continue;
    if (typeof maxUses === 'number' && Number.isFinite(maxUses) && maxUses > 0) searches += maxUses;
  }
  return searches;
}

/**
 * Whether the request lets Anthropic compact its context (an edit of type `compact_*`): the compaction is a
 * sampling iteration of its own that reads the whole prompt, billed apart from the answer, which then reads
 * the compacted context (at most the prompt again).
 * @see https://platform.claude.com/docs/en/build-with-claude/compaction
 */
function compacts(request: WorstCaseRequest): boolean {
  const edits = request.context_management?.edits;
  return Array.isArray(edits) && edits.some((edit) => typeof edit?.type === 'string' && edit.type.startsWith('compact_'));
}

/**
 * The most the request can cost: the estimated input plus `max_tokens` of output, at the dearest of the
 * plan's prices. Input is priced at the dearest input rate of each price list (a one-hour cache write can
 * cost twice the plain input), so the estimate is a ceiling whatever the request caches. What the request
 * bounds beyond that is added: each web search tool's `max_uses` searches at the price list's per-search fee,
 * a searching vendor's per-request fee at its `high` tier, and a compaction's second reading of the prompt.
 */
export function worstCase(request: WorstCaseRequest, pricings: readonly Readonly<Pricing>[]): UsageAmounts {
  const input = estimateInputTokens(request) * (compacts(request) ? 2 : 1);
  const output = Math.max(0, request.max_tokens);
  const searches = boundedSearches(request.tools);
  let cost = 0;
  for (const pricing of pricings) {
    const plain = computeCost({ inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0 }, pricing);
    // Every input token written at the dearest write price: what a write of a lifetime no price names costs.
    const written = computeCost({ inputTokens: 0, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: input, cacheWriteUnknownTokens: input }, pricing);
    // A searching vendor's per-request fee at its dearest search context size (the answer reports which).
    const requestFee = pricing.search_request?.high ?? 0;
    cost = Math.max(cost, Math.max(plain, written) + searches * (pricing.web_search_request ?? 0) + requestFee);
  }
  return { cost, tokens: input + output };
}

/** The sum of two amounts. */
export function add(one: UsageAmounts, other: UsageAmounts): UsageAmounts {
  return { cost: one.cost + other.cost, tokens: one.tokens + other.tokens };
}

/** The worst case of calls reserved together (a request and its moderation screening), each at its plan's prices. */
export function worstCaseOfCalls(calls: readonly { request: Parameters<typeof worstCase>[0]; attempts: readonly { pricing: Readonly<Pricing> }[] }[]): UsageAmounts {
  let total: UsageAmounts = { cost: 0, tokens: 0 };
  for (const call of calls) total = add(total, worstCase(call.request, call.attempts.map((attempt) => attempt.pricing)));
  return total;
}

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/**
 * What an answer used, read as its generation record reads it: `usage.cost` as the client was told (0 when
 * there is none, e.g. a request that failed), and its tokens.
 */
export function settledAmounts(usage: AnswerUsage | null): UsageAmounts {
  const cost = typeof usage?.cost === 'number' && Number.isFinite(usage.cost) && usage.cost > 0 ? usage.cost : 0;
  const tokens = count(usage?.input_tokens) + count(usage?.output_tokens) + count(usage?.cache_read_input_tokens) + count(usage?.cache_creation_input_tokens);
  return { cost, tokens };
}
