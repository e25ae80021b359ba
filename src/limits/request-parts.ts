/**
 * The calls of one request that settle before the request itself does: a tool loop's steps and the
 * `moderation` plugin's screening by a catalog model. Each reserves its own hold and settles (the spending
 * ledger included) as soon as it has ended, so a request that fails or is refused later has still spent
 * them; the request's own settlement then counts only what its answer's usage adds to theirs.
 */
import { add, type UsageAmounts } from '#src/limits/usage-amounts.ts';

/** What one request's parts hold and have settled. */
export interface SettledParts {
  /** Holds of parts not settled yet (a step cancelled under the request is released with the request). */
  open: Set<string>;
  /** What of the answer's usage the settled parts already counted (a step: cost and tokens; the screening: its cost). */
  counted: UsageAmounts;
  /**
   * What settled parts used that the request's own hold reserved for them (a plain request's screening): the
   * request's settlement releases it into the store with the rest.
   */
  carried: UsageAmounts;
}

// A remainder below this is rounding (a sum of step costs against the same sum): nothing is left to settle.
const ROUNDING_USD = 1e-12;

/** What of the answer's usage is left once its parts' settlements are taken off (a failed request's: nothing). */
export function remainder(actual: UsageAmounts, counted: UsageAmounts): UsageAmounts {
  const cost = actual.cost - counted.cost;
  return { cost: cost > ROUNDING_USD ? cost : 0, tokens: Math.max(0, actual.tokens - counted.tokens) };
}

/** The parts of the requests in progress, by generation id. */
export class RequestParts {
  readonly #parts = new Map<string, SettledParts>();

  /** Notes a part's hold, open until it settles. */
  opened(generationId: string, holdId: string): void {
    this.#of(generationId).open.add(holdId);
  }

  /**
   * Notes a settled part: its own hold, or `carried` (what it used, for the request's own hold to release), and
   * what it counted of the answer's usage.
   */
  settled(generationId: string, part: { holdId: string } | { carried: UsageAmounts }, counted: UsageAmounts): void {
    const parts = this.#of(generationId);
    if ('holdId' in part) parts.open.delete(part.holdId);
    else parts.carried = add(parts.carried, part.carried);
    parts.counted = add(parts.counted, counted);
  }

  /** Whether the hold is an open part of the request. */
  isOpen(generationId: string, holdId: string): boolean {
    return this.#parts.get(generationId)?.open.has(holdId) ?? false;
  }

  /** Takes the request's parts away as it settles; undefined when it had none. */
  take(generationId: string): SettledParts | undefined {
    const parts = this.#parts.get(generationId);
    this.#parts.delete(generationId);
    return parts;
  }

  #of(generationId: string): SettledParts {
    let parts = this.#parts.get(generationId);
    if (!parts) {
      parts = { open: new Set(), counted: { cost: 0, tokens: 0 }, carried: { cost: 0, tokens: 0 } };
      this.#parts.set(generationId, parts);
    }
    return parts;
  }
}
