/**
 * The auto-router: picks the model for `model: "switchboard/auto"` or the `auto-router` plugin. Pure: the
 * caller passes the catalog's models as candidates and, with `pin_model`, the model chosen earlier in the
 * session.
 * @see AutoRouterPlugin in openapi/components/schemas/plugins.yaml
 */
import { BadRequestError } from '#src/errors.ts';
import type { AutoRouterPlugin, AutoRouterReport, MessageRequest } from '#src/api-types.ts';
import { modelPatternMatches } from '#src/routing/byok-selection.ts';
import { estimateDifficulty } from '#src/routing/auto-router/prompt-difficulty.ts';
import { estimateContextTokens } from '#src/request/estimate-input-tokens.ts';
import { compressMiddleOut } from '#src/plugins/middle-out.ts';
import { requestMedia, requestsThinking } from '#src/routing/request-parameters.ts';

/** The model slug that asks for the auto-router. */
export const AUTO_MODEL = 'switchboard/auto';

/** A model the auto-router may choose. */
export interface AutoRouterCandidate {
  slug: string;
  /** USD per million tokens. */
  pricing: { input: number; output: number };
  capabilities: { tools: boolean; vision: boolean; pdf: boolean; thinking: boolean };
  /** Tokens; null when unknown, which the prompt-length need does not exclude. */
  contextLength: number | null;
}

/** Price band by blended price per million tokens. */
export type CostTier = NonNullable<AutoRouterPlugin['cost_tier']>;

/** The auto-router's choice, a one-line explanation for logs, and what `gateway_metadata.plugins` reports of it. */
export interface AutoRouterChoice {
  model: string;
  reason: string;
  /** 0 (trivial) to 1 (hard). */
  difficulty: number;
  report: AutoRouterReport;
}

/** The effective plugin settings when the request is auto-routed, else null. */
export function autoRouterSettings(request: MessageRequest): AutoRouterPlugin | null {
  const plugin = request.plugins?.find((entry) => entry.id === 'auto-router');
  // `switchboard/auto` names no real model, so it is auto-routed whatever the plugin's `enabled` says.
  if (request.model === AUTO_MODEL) return plugin ?? { id: 'auto-router' };
  return plugin !== undefined && plugin.enabled !== false ? plugin : null;
}

/** Input and output price per million tokens, blended 1:1. */
export function blendedPrice(pricing: AutoRouterCandidate['pricing']): number {
  return (pricing.input + pricing.output) / 2;
}

/** The band of a blended price: `economy` under $2, `standard` $2 to $20, `premium` above $20. */
export function costTierOf(price: number): CostTier {
  if (price < 2) return 'economy';
  return price <= 20 ? 'standard' : 'premium';
}

/**
 * The prompt's tokens a candidate's context must hold: the context check's estimate (earlier turns' thinking
 * not counted), or with `context-compression` the prompt compressed as far as it goes, since each attempt
 * compresses it for its endpoint and a request naming the model would be served.
 */
function promptTokens(request: MessageRequest): number {
  const compress = request.plugins?.some((plugin) => plugin.id === 'context-compression' && plugin.enabled !== false) === true;
  if (!compress) return estimateContextTokens(request);
  const fewest = compressMiddleOut(request, 0);
  return fewest.removed === 0 ? estimateContextTokens(request) : estimateContextTokens({ ...request, messages: fewest.messages });
}

function needsOf(request: MessageRequest): { label: string; has: (candidate: AutoRouterCandidate) => boolean }[] {
  const needs: { label: string; has: (candidate: AutoRouterCandidate) => boolean }[] = [];
  const media = requestMedia(request);
  if (request.tools !== undefined && request.tools.length > 0) needs.push({ label: 'tools', has: (candidate) => candidate.capabilities.tools });
  if (media.images > 0) needs.push({ label: 'images', has: (candidate) => candidate.capabilities.vision });
  if (media.pdfs > 0) needs.push({ label: 'PDFs', has: (candidate) => candidate.capabilities.pdf });
  if (requestsThinking(request)) needs.push({ label: 'thinking', has: (candidate) => candidate.capabilities.thinking });
  const tokens = promptTokens(request);
  // An unknown context length is not held against a model: the configuration did not say, so it may fit.
  needs.push({ label: `a context of ~${tokens} tokens`, has: (candidate) => candidate.contextLength === null || candidate.contextLength >= tokens });
  return needs;
}

/**
 * Chooses a model. Candidates are those matching `allowed_models` (exact slugs or `<vendor>/*`; every
 * candidate when absent) minus `excluded_models`, within `cost_tier`, able to serve what the request needs
 * (tools, images, PDFs, thinking, the estimated prompt length) and, when given, accepted by `isServable`
 * (e.g. the routing plan's filters). With `pin_model` and a pinned model still eligible, that model is kept.
 * Otherwise the eligible models are ranked by blended price and the prompt's difficulty (see
 * {@link estimateDifficulty}) picks the rank: the cheapest for a trivial prompt, the priciest for the hardest,
 * proportionally in between. Answers 400 naming the constraint that left no model.
 */
export function chooseModel(input: {
  request: MessageRequest;
  settings: AutoRouterPlugin;
  candidates: readonly AutoRouterCandidate[];
  pinnedModel?: string | null;
  isServable?: (slug: string) => boolean;
}): AutoRouterChoice {
  const { settings } = input;
  let eligible = input.candidates.filter((candidate) => candidate.slug !== AUTO_MODEL);
  const narrow = (keep: (candidate: AutoRouterCandidate) => boolean, why: string): void => {
    eligible = eligible.filter(keep);
    if (eligible.length === 0) throw new BadRequestError(`auto-router: no candidate model ${why}`);
  };
  narrow(() => true, 'in the catalog');
  const allowed = settings.allowed_models;
  if (allowed !== undefined && allowed.length > 0) {
    narrow((candidate) => allowed.some((pattern) => modelPatternMatches(pattern, candidate.slug)), `matches allowed_models ${allowed.join(', ')}`);
  }
  const excluded = settings.excluded_models ?? [];
  if (excluded.length > 0) narrow((candidate) => !excluded.some((pattern) => modelPatternMatches(pattern, candidate.slug)), 'is left after excluded_models');
  const tier = settings.cost_tier;
  if (tier !== undefined) narrow((candidate) => costTierOf(blendedPrice(candidate.pricing)) === tier, `in cost_tier ${tier}`);
  for (const need of needsOf(input.request)) narrow(need.has, `supports ${need.label}`);
  const isServable = input.isServable;
  if (isServable !== undefined) narrow((candidate) => isServable(candidate.slug), 'can be served under the request\'s provider preferences');

  const difficulty = estimateDifficulty(input.request);
  const pinned = input.pinnedModel;
  const report = (model: string, isPinned: boolean): AutoRouterReport => ({
    id: 'auto-router',
    model,
    difficulty: difficulty.score,
    difficulty_label: difficulty.label,
    signals: difficulty.signals,
    candidates: eligible.length,
    ...(tier !== undefined ? { cost_tier: tier } : {}),
    pinned: isPinned,
  });
  if (settings.pin_model === true && pinned && eligible.some((candidate) => candidate.slug === pinned)) {
    return { model: pinned, reason: `auto-router: kept ${pinned}, pinned for this session`, difficulty: difficulty.score, report: report(pinned, true) };
  }
  const ranked = [...eligible].sort(
    (left, right) => blendedPrice(left.pricing) - blendedPrice(right.pricing) || (left.slug < right.slug ? -1 : left.slug > right.slug ? 1 : 0),
  );
  const chosen = ranked[Math.round(difficulty.score * (ranked.length - 1))] as AutoRouterCandidate;
  const signals = difficulty.signals.length > 0 ? ` (${difficulty.signals.join(', ')})` : '';
  return {
    model: chosen.slug,
    reason: `auto-router: ${difficulty.label} prompt${signals}, difficulty ${difficulty.score.toFixed(2)}, chose ${chosen.slug} among ${ranked.length} candidates${tier ? ` in cost_tier ${tier}` : ''}`,
    difficulty: difficulty.score,
    report: report(chosen.slug, false),
  };
}
