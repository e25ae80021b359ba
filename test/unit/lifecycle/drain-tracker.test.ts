import { describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { DrainTracker } from '#src/lifecycle/drain-tracker.ts';
import { ShuttingDownError } from '#src/errors.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';

async function* events(count: number, stall: Promise<never>): AsyncGenerator<SseEvent> {
  for (let index = 0; index < count; index += 1) yield { event: 'ping', data: String(index) };
  await stall;
}

describe('DrainTracker.guardStream', () => {
  it('passes events through until the deadline, then turns whatever the stream does into the shutdown error', async () => {
    const tracker = new DrainTracker({ healthPath: '/api/v1/health' });
    let abort!: (error: Error) => void;
    const stall = new Promise<never>((_, reject) => (abort = reject));
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of tracker.guardStream(events(2, stall))) seen.push((event as { data: string }).data);
    })();
    await new Promise((resolve) => setTimeout(resolve, 10));
    tracker.passDeadline();
    // The request's abort reaches the stalled upstream read.
    abort(new Error('aborted upstream read'));
    await expect(reading).rejects.toBeInstanceOf(ShuttingDownError);
    expect(seen).toEqual(['0', '1']);
  });

  it('leaves a stream alone when there is no shutdown', async () => {
    const tracker = new DrainTracker({ healthPath: '/api/v1/health' });
    const failure = new Error('upstream broke');
    const reading = (async () => {
      for await (const _event of tracker.guardStream(events(1, Promise.reject(failure)))) {
        // consume
      }
    })();
    await expect(reading).rejects.toBe(failure);
  });
});

describe('DrainTracker.middleware', () => {
  // What the middleware and `onDeadline` use of a response: its locals and its 'close' event.
  function response(): Response & EventEmitter {
    return Object.assign(new EventEmitter(), { locals: {} }) as unknown as Response & EventEmitter;
  }

  function track(tracker: DrainTracker, res: Response): void {
    tracker.middleware({ path: '/api/v1/messages' } as Request, res, () => undefined);
  }

  it('calls the hooks of the requests still in flight at the deadline, not those of closed ones', () => {
    const tracker = new DrainTracker({ healthPath: '/api/v1/health' });
    const open = response();
    const closed = response();
    track(tracker, open);
    track(tracker, closed);
    const called: string[] = [];
    tracker.onDeadline(open, () => called.push('open'));
    tracker.onDeadline(closed, () => called.push('closed'));
    closed.emit('close');
    expect(tracker.inFlight).toBe(1);
    tracker.passDeadline();
    expect(called).toEqual(['open']);
  });

  it('lets go of a closed request’s hooks, which close over the request (a scavenge may still reach the entry)', () => {
    const tracker = new DrainTracker({ healthPath: '/api/v1/health' });
    const res = response();
    track(tracker, res);
    tracker.onDeadline(res, () => undefined);
    const entry = res.locals.drain as { hooks: unknown[] };
    expect(entry.hooks).toHaveLength(1);
    res.emit('close');
    expect(entry.hooks).toHaveLength(0);
  });
});
