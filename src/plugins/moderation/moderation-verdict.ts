/**
 * What the `moderation` plugin answers: the verdict every engine gives, the refusal a flagged input gets (a
 * normal message, or its event stream), built without calling any model, and what a screening by a catalog model (`engine: model`) costs: the attempt that
 * answered, its tokens, its price and when it ran, charged to the gateway key like any model call (so the
 * answer's `usage.cost`, the generation record and the key's spending all include it). Pure.
 * @see ModerationPlugin in openapi/components/schemas/plugins.yaml
 * @see ModerationScreening in openapi/components/schemas/plugin-reports.yaml
 */
import type { MessageRequest, MessageResponse, MessageStreamEvent, ModerationScreening, RefusalDetails, Usage } from '#src/api-types.ts';
import { computeCost, usageFromAnthropic } from '#src/catalog/pricing.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';

/** An engine's verdict on the input. */
export interface ModerationVerdict {
  flagged: boolean;
  /** The moderation category (`violence`, `harassment/threatening`, ...); null when not flagged. */
  category: string | null;
  /** One sentence for the client. */
  explanation: string;
}

/** The refusal details of a flagged verdict. */
export function refusalDetails(verdict: ModerationVerdict): RefusalDetails {
  return { type: 'refusal', category: verdict.category ?? 'flagged', explanation: verdict.explanation };
}

/**
 * The message a flagged input is answered with: no content, `stop_reason: refusal`, zero tokens; `cost` is
 * what the screening was charged (a moderation model's call; OpenAI's endpoint is free).
 */
export function refusalMessage(request: Pick<MessageRequest, 'model'>, verdict: ModerationVerdict, generationId: string, cost = 0): MessageResponse {
  return {
    id: `msg_${generationId}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: [],
    stop_reason: 'refusal',
    stop_sequence: null,
    stop_details: refusalDetails(verdict),
    usage: { input_tokens: 0, output_tokens: 0, cost, is_byok: false },
  };
}

/** The same refusal as an event stream: `message_start`, `message_delta` with the refusal, `message_stop`. */
export function refusalEvents(message: MessageResponse): MessageStreamEvent[] {
  const { stop_details: details, stop_reason: _stop, ...rest } = message;
  return [
    { type: 'message_start', message: { ...rest, content: [], stop_reason: null, usage: { input_tokens: 0, output_tokens: 0 } } },
    { type: 'message_delta', delta: { stop_reason: 'refusal', stop_sequence: null, ...(details ? { stop_details: details } : {}) }, usage: { output_tokens: 0, cost: message.usage.cost ?? 0, is_byok: false } },
    { type: 'message_stop' },
  ];
}

/** The tokens of the screening call, in Anthropic's convention. */
export type ScreeningUsage = Pick<Usage, 'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'>;

/** When a screening call ran, in epoch milliseconds: from its first attempt sent to its answer. */
export interface ScreeningWindow {
  startedAt: number;
  endedAt: number;
}

/**
 * One answered screening call, what it cost and when it ran (trace destinations show it as a span of its own,
 * so they need its window: the request's record only has the request's start and total).
 */
export interface ScreeningCharge extends ScreeningWindow {
  /** The attempt that answered the screening. */
  attempt: Attempt;
  usage: ScreeningUsage;
  /** USD, on the endpoint that served the screening. */
  cost: number;
  /** The model the vendor's answer named (its `model`), for trace destinations' `gen_ai.response.model`. */
  responseModel?: string;
}

/**
 * The charge of a screening answer with this usage on this attempt, made in this window; `responseModel` is
 * the model the answer named, when it named one.
 */
export function screeningCharge(attempt: Attempt, usage: Partial<Usage>, window: ScreeningWindow, responseModel?: string): ScreeningCharge {
  const counted: ScreeningUsage = {
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? null,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? null,
  };
  const charge: ScreeningCharge = { attempt, usage: counted, cost: computeCost(usageFromAnthropic(counted), attempt.pricing), startedAt: window.startedAt, endedAt: window.endedAt };
  if (responseModel) charge.responseModel = responseModel;
  return charge;
}

/** The screening as the plugin report and the generation record show it. */
export function describeScreening(charge: ScreeningCharge): ModerationScreening {
  return {
    model: charge.attempt.model,
    provider: charge.attempt.provider.displayName,
    is_byok: isByok(charge.attempt),
    usage: { ...charge.usage },
    cost: charge.cost,
  };
}

function sumOrNull(values: readonly (number | null | undefined)[]): number | null {
  return values.some((value) => typeof value === 'number') ? values.reduce<number>((total, value) => total + (value ?? 0), 0) : null;
}

/**
 * The charge of a screening made in several calls: their tokens and costs summed (each priced on the endpoint
 * that answered it), from the first call's start to the last one's end, shown with the attempt that answered
 * the first; null when none answered.
 */
export function combinedCharge(charges: readonly ScreeningCharge[]): ScreeningCharge | null {
  const [first] = charges;
  if (!first || charges.length === 1) return first ?? null;
  return {
    attempt: first.attempt,
    usage: {
      input_tokens: charges.reduce((total, charge) => total + charge.usage.input_tokens, 0),
      output_tokens: charges.reduce((total, charge) => total + charge.usage.output_tokens, 0),
      cache_creation_input_tokens: sumOrNull(charges.map((charge) => charge.usage.cache_creation_input_tokens)),
      cache_read_input_tokens: sumOrNull(charges.map((charge) => charge.usage.cache_read_input_tokens)),
    },
    cost: charges.reduce((total, charge) => total + charge.cost, 0),
    startedAt: Math.min(...charges.map((charge) => charge.startedAt)),
    endedAt: Math.max(...charges.map((charge) => charge.endedAt)),
    // The calls ran on the first one's attempt, as `attempt` says: the model its answer named.
    ...(first.responseModel ? { responseModel: first.responseModel } : {}),
  };
}
