/**
 * The store request of one admission or check: which of the key's limits it applies and what it reserves
 * against them, and what an admitted one holds. Pure, so the key limiter's admissions (a request, a tool-loop
 * step, a loop's stream slot) and its check before a loop's plugins read the limits by one rule.
 */
import type { KeyLimits } from '#src/limits/key-limits.ts';
import { limitPeriod, type LimitPeriod } from '#src/limits/limit-period.ts';
import type { AdmissionRequest, Hold } from '#src/limits/limit-store.ts';
import { secondOf } from '#src/limits/minute-window.ts';
import type { AdmissionPlan } from '#src/limits/key-limiter-types.ts';
import { worstCaseOfCalls, type UsageAmounts } from '#src/limits/usage-amounts.ts';

/** Which of the key's limits an admission applies. */
export interface LimitChoice {
  credit: boolean;
  requests: boolean;
  tokens: boolean;
  /** The concurrent-stream limit, for a streamed request. */
  streams: boolean;
}

/** A plain request, and the check before a tool loop's plugins: every limit. */
export const ALL_LIMITS: LimitChoice = { credit: true, requests: true, tokens: true, streams: true };
/** A call settled before its request (a loop's step or screening): every limit but the stream slot. */
export const PART_LIMITS: LimitChoice = { credit: true, requests: true, tokens: true, streams: false };
/** A streamed loop's one stream slot. */
export const STREAM_ONLY: LimitChoice = { credit: false, requests: false, tokens: false, streams: true };
/** A request's reservation topped up (the web plugins' additions): credit and tokens, no request or stream slot. */
export const RESERVATION_ONLY: LimitChoice = { credit: true, requests: false, tokens: true, streams: false };

const NOTHING: UsageAmounts = { cost: 0, tokens: 0 };

/** A store request, with what its refusal is worded from. */
export interface BuiltRequest {
  request: AdmissionRequest;
  limits: KeyLimits;
  period: LimitPeriod | null;
}

/** What one admission or check is made of. */
export interface AdmissionInput {
  keyHash: string;
  limits: KeyLimits;
  /** The hold id (a check takes none: the generation id, unused). */
  id: string;
  which: LimitChoice;
  stream: boolean;
  /** The calls it reserves the worst case of (credit and tokens); absent for a check, which reserves nothing. */
  calls?: readonly AdmissionPlan[];
  /** What it reserves instead of the calls' worst case (a top-up of a reservation already made). */
  reserve?: UsageAmounts;
  nowMs: number;
  holdMs: number;
}

/** The store request of the limits `which` asks for that the key has, or null when it has none of them. */
export function buildAdmissionRequest(input: AdmissionInput): BuiltRequest | null {
  const { limits, which, nowMs } = input;
  const streams = which.streams && input.stream && limits.maxConcurrentStreams !== null ? { max: limits.maxConcurrentStreams } : null;
  const creditLimit = which.credit ? limits.creditLimit : null;
  const requestsPerMinute = which.requests ? limits.requestsPerMinute : null;
  const tokensPerMinute = which.tokens ? limits.tokensPerMinute : null;
  if (creditLimit === null && requestsPerMinute === null && tokensPerMinute === null && streams === null) return null;
  const worst = input.reserve ?? (input.calls && (creditLimit !== null || tokensPerMinute !== null) ? worstCaseOfCalls(input.calls) : NOTHING);
  const period = creditLimit !== null ? limitPeriod(limits.limitReset, nowMs) : null;
  const request: AdmissionRequest = {
    keyHash: input.keyHash,
    id: input.id,
    nowMs,
    credit: period && creditLimit !== null ? { limit: creditLimit, period, cost: worst.cost } : null,
    requestsPerMinute,
    tokens: tokensPerMinute !== null ? { limit: tokensPerMinute, amount: worst.tokens } : null,
    streams,
    expiresAtMs: nowMs + input.holdMs,
  };
  return { request, limits, period };
}

/**
 * The store request of a top-up: what the plan sent reserves beyond the plan admitted (its prompt grew after
 * admission), credit and tokens, under `id`; null when the key has no such limit or nothing grew. Its limits
 * are ones no count reaches, since the stores admit below the limit: a top-up is a reservation, never refused.
 */
export function buildTopUpRequest(input: Omit<AdmissionInput, 'which' | 'stream' | 'calls' | 'reserve'> & { admitted: AdmissionPlan; sent: AdmissionPlan }): AdmissionRequest | null {
  const { limits } = input;
  if (limits.creditLimit === null && limits.tokensPerMinute === null) return null;
  const before = worstCaseOfCalls([input.admitted]);
  const after = worstCaseOfCalls([input.sent]);
  const reserve = { cost: Math.max(0, after.cost - before.cost), tokens: Math.max(0, after.tokens - before.tokens) };
  if (reserve.cost === 0 && reserve.tokens === 0) return null;
  const built = buildAdmissionRequest({ ...input, which: RESERVATION_ONLY, stream: false, reserve });
  if (!built) return null;
  const { request } = built;
  return {
    ...request,
    credit: request.credit ? { ...request.credit, limit: Number.MAX_SAFE_INTEGER } : null,
    tokens: request.tokens ? { ...request.tokens, limit: Number.MAX_SAFE_INTEGER } : null,
  };
}

/** What an admitted request holds until it settles; `seed`: the spending count its reservation was made in. */
export function holdOf(request: AdmissionRequest, seed: string | null): Hold {
  return {
    keyHash: request.keyHash,
    id: request.id,
    credit: request.credit ? { period: request.credit.period, cost: request.credit.cost } : null,
    tokens: request.tokens ? { second: secondOf(request.nowMs), amount: request.tokens.amount } : null,
    stream: request.streams !== null,
    seed,
  };
}

/**
 * What an admission whose reply from Redis was lost (the connection dropped, the command timed out) may have
 * taken there all the same, as a hold to give back: its reservation and stream slot, which would otherwise
 * count for every instance until they expired. Not its tokens: the request and tokens it may have counted in
 * the window leave within the minute, and taking them off when it never ran would take off another request's.
 */
export function lostHoldOf(request: AdmissionRequest): Hold {
  return { ...holdOf(request, null), tokens: null };
}
