import { describe, expect, it } from 'vitest';
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
