/**
 * The abort signal of one request: fires when the client disconnects before the answer is complete, or
 * when the request's whole time budget is spent, so upstream calls stop as soon as nobody waits for them.
 */
import type { Request, Response } from 'express';

/** An AbortSignal tied to the client connection and a time budget. */
export function requestSignal(_req: Request, res: Response, timeoutMs: number): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return timeoutMs > 0 ? AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)]) : controller.signal;
}
