/**
 * The abort signal of one request: fires when the client disconnects before the answer is complete, or
 * when the request's whole time budget is spent, so upstream calls stop as soon as nobody waits for them.
 * One controller and one timer per request (cheaper than `AbortSignal.any` with `AbortSignal.timeout`).
 */
import type { Request, Response } from 'express';

/** An AbortSignal tied to the client connection and a time budget. */
export function requestSignal(_req: Request, res: Response, timeoutMs: number): AbortSignal {
  const controller = new AbortController();
  const timer =
    timeoutMs > 0
      ? setTimeout(() => controller.abort(new DOMException(`The request exceeded its time budget of ${timeoutMs} ms`, 'TimeoutError')), timeoutMs)
      : undefined;
  res.once('close', () => {
    clearTimeout(timer);
    if (!res.writableFinished) controller.abort(new DOMException('The client disconnected', 'AbortError'));
  });
  return controller.signal;
}
