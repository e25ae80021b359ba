/**
 * The abort signal of one request: fires when the client disconnects before the answer is complete, when
 * the request's whole time budget is spent, or when the gateway's shutdown grace period ends, so upstream
 * calls stop as soon as nobody waits for them.
 * One controller and one timer per request (cheaper than `AbortSignal.any` with `AbortSignal.timeout`).
 */
import type { Request, Response } from 'express';
import { TimeBudgetSpent } from '#src/errors.ts';

/** Where a request registers what to do when a shutdown's grace period ends (src/lifecycle/drain-tracker.ts). */
export interface ShutdownDeadline {
  onDeadline(res: Response, hook: (error: Error) => void): void;
}

/** An AbortSignal tied to the client connection, a time budget and, when given, a shutdown's deadline. */
export function requestSignal(_req: Request, res: Response, timeoutMs: number, shutdown?: ShutdownDeadline): AbortSignal {
  const controller = new AbortController();
  shutdown?.onDeadline(res, (error) => controller.abort(error));
  const timer =
    timeoutMs > 0
      ? setTimeout(() => controller.abort(new TimeBudgetSpent(timeoutMs)), timeoutMs)
      : undefined;
  // `on`, not `once`: a response closes once, and `once` wraps each listener in two more objects.
  res.on('close', () => {
    clearTimeout(timer);
    if (!res.writableFinished) controller.abort(new DOMException('The client disconnected', 'AbortError'));
  });
  return controller.signal;
}
