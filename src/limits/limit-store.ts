/**
 * What a limit store does, in process or in Redis: admit a request against its key's limits (taking its
 * reservation, request, tokens and stream slot at once, or nothing), check one by the same rules without
 * taking anything, settle it to its real usage, and read the current counts. Plain data in and out, so both
 * stores are driven the same way by the key limiter.
 */
import type { LimitPeriod } from '#src/limits/limit-period.ts';

/** One request's admission: which limits apply, and what it reserves against them. */
export interface AdmissionRequest {
  keyHash: string;
  /** The generation id: names the request's reservation and stream slot. */
  id: string;
  nowMs: number;
  /** The credit limit and the request's worst-case cost in the period, or null without a credit limit. */
  credit: { limit: number; period: LimitPeriod; cost: number } | null;
  requestsPerMinute: number | null;
  /** The tokens-per-minute limit and the request's worst-case tokens. */
  tokens: { limit: number; amount: number } | null;
  /** The concurrent-stream limit, only for a streamed request. */
  streams: { max: number } | null;
  /** When a reservation or stream slot that is never settled (its instance died) stops counting. */
  expiresAtMs: number;
}

/** Why a request was refused; `seed` asks the caller to load the period's spending first (then ask again). */
export type AdmissionRefusal =
  | { ok: false; limit: 'seed' }
  | { ok: false; limit: 'credit'; spent: number; reserved: number }
  | { ok: false; limit: 'streams'; open: number }
  | { ok: false; limit: 'requests'; retryAfterMs: number }
  | { ok: false; limit: 'tokens'; used: number; retryAfterMs: number };

/**
 * The per-minute windows of a key as an admission left them, this request counted: what a successful
 * answer's rate-limit headers say (limit-answers.ts), at no cost of its own. Null for a limit the key lacks.
 */
export interface AdmittedWindow {
  requests: number | null;
  tokens: number | null;
  /**
   * Redis only: the windows' one-second buckets, `second:amount` joined by commas. Kept as received (parsed
   * only if Redis goes away): the process's windows start from them, so the limit holds across the switch.
   */
  buckets?: { requests: string; tokens: string };
}

/**
 * The answer to an admission. `seed` names the spending count the reservation was made in (Redis); `window`
 * is there when the admission applied a per-minute limit.
 */
export type AdmissionResult = { ok: true; seed: string | null; window?: AdmittedWindow } | AdmissionRefusal;

/** The answer to a check: the refusal an admission would give now, or none. */
export type CheckResult = { ok: true } | AdmissionRefusal;

/** What an admitted request holds until it settles. */
export interface Hold {
  keyHash: string;
  id: string;
  /** The period and reserved cost, when the key has a credit limit. */
  credit: { period: LimitPeriod; cost: number } | null;
  /** The second the tokens were counted in and how many, when the key has a tokens-per-minute limit. */
  tokens: { second: number; amount: number } | null;
  stream: boolean;
  /** The spending count the reservation was made in (Redis: settles only count into that one). */
  seed: string | null;
}

/** The counts of one key, for `GET /keys`; null where the store does not know (or the key has no such limit). */
export interface StoreUsage {
  spent: number | null;
  requests: number | null;
  tokens: number | null;
  streams: number | null;
}

/** Which counts a usage read asks for. */
export interface UsageQuery {
  keyHash: string;
  period: LimitPeriod | null;
  requests: boolean;
  tokens: boolean;
  streams: boolean;
  nowMs: number;
}

/** A limit store. */
export interface LimitStore {
  admit(request: AdmissionRequest): Promise<AdmissionResult>;
  /**
   * The admission's verdict by the same rules, taking nothing (no reservation, request, tokens or stream slot):
   * a request that passes may still be refused by its admission, which stays authoritative. `seed` as admit.
   */
  check(request: AdmissionRequest): Promise<CheckResult>;
  /** Seeds the period's spending (from the database) unless it is already counted; returns its seed. */
  seed(keyHash: string, period: LimitPeriod, spent: number): Promise<string>;
  /** Releases the hold and counts the real usage; `cost` is added to the spending of the hold's seed. */
  settle(hold: Hold, actual: { cost: number; tokens: number }, nowMs: number): Promise<void>;
  usage(query: UsageQuery): Promise<StoreUsage>;
}

/** An admission or a check, as the key limiter runs it against whichever store counts now. */
export type StoreOperation<R extends CheckResult> = (store: LimitStore, request: AdmissionRequest) => Promise<R>;

/**
 * Runs an admission or a check, seeding the period's spending first when the store asks for it (`seed`).
 * `spendOf` reads the spending from the database, or answers what it can when the database cannot be read
 * (the caller decides: in process it fails open, Redis is never seeded with less than the database's count).
 */
export async function runSeeded<R extends CheckResult>(store: LimitStore, request: AdmissionRequest, operation: StoreOperation<R>, spendOf: (keyHash: string, period: LimitPeriod) => Promise<number>): Promise<R> {
  const first = await operation(store, request);
  const verdict: CheckResult = first;
  if (verdict.ok || verdict.limit !== 'seed' || !request.credit) return first;
  const { period } = request.credit;
  await store.seed(request.keyHash, period, await spendOf(request.keyHash, period));
  return operation(store, request);
}
