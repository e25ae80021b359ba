/**
 * Which planned attempt a session's sticky pin moves to the front. A pin remembers the provider (and key)
 * that last served the session; the keys are chosen again on every request, because the caller's own keys
 * come first: a customer adds a BYOK credential in order to pay with it, from the next request on.
 * @see sticky-sessions.ts for how pins are kept
 */
import type { PlannedAttempt, StickyKind, StickyPin } from '#src/routing/plan-types.ts';

function samePlace(pin: StickyPin, attempt: PlannedAttempt): boolean {
  return attempt.endpoint.provider === pin.provider && (pin.model === undefined || pin.model === attempt.model);
}

function credentialIdOf(attempt: PlannedAttempt): string | null {
  return attempt.credential.kind === 'byok' ? attempt.credential.credentialId : null;
}

/** The index of the first attempt of the model of `attempts[index]`: where a pinned attempt moves to. */
export function modelStart(attempts: readonly PlannedAttempt[], index: number): number {
  const model = attempts[index]?.model;
  return attempts.findIndex((attempt) => attempt.model === model);
}

/**
 * The index of the attempt to move to the front of its model's attempts (see {@link modelStart}), or -1 to
 * keep the plan's order.
 *
 * - A pin to one of the caller's credentials that the plan still uses: that attempt.
 * - Otherwise (a pin to the shared key, or to a credential now disabled, deleted or not applicable) the pinned
 *   provider keeps the session, on the plan's first key for it: the caller's own key when one is placed before
 *   the shared key, else the shared key.
 * - Except for a `content` pin that would land on the shared key while the plan leads the model with one of
 *   the caller's keys (on another provider): the plan's order wins, so the caller's key serves.
 */
export function pinnedAttemptIndex(attempts: readonly PlannedAttempt[], pin: StickyPin, kind: StickyKind): number {
  if (pin.credentialId !== null) {
    const exact = attempts.findIndex((attempt) => samePlace(pin, attempt) && credentialIdOf(attempt) === pin.credentialId);
    if (exact >= 0) return exact;
  }
  const first = attempts.findIndex((attempt) => samePlace(pin, attempt));
  if (first < 0) return -1;
  if (attempts[first]?.credential.kind === 'byok') return first;
  if (kind === 'content' && attempts[modelStart(attempts, first)]?.credential.kind === 'byok') return -1;
  return first;
}
