import { describe, expect, it } from 'vitest';
import { ShuttingDownError, TimeBudgetSpent } from '#src/errors.ts';
import { clientLeft, isCancellation } from '#src/messages/run-attempts.ts';

function aborted(reason: unknown): AbortSignal {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
}

describe('clientLeft', () => {
  // The reasons src/http/request-signal.ts aborts a request's signal with, and none.
  it.each<[string, AbortSignal, boolean, boolean]>([
    ['the client disconnected', aborted(new DOMException('The client disconnected', 'AbortError')), true, true],
    ['the time budget ran out', aborted(new TimeBudgetSpent(1000)), false, false],
    ['the shutdown deadline passed', aborted(new ShuttingDownError()), false, true],
    ['not aborted', new AbortController().signal, false, false],
  ])('%s: left %s, a cancellation %s', (_case, signal, left, cancellation) => {
    expect(clientLeft(signal)).toBe(left);
    expect(isCancellation(signal)).toBe(cancellation);
  });
});
