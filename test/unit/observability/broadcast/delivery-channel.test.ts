/**
 * A delivery channel: the sender warms when the channel opens, the queue holds one full batch more than its
 * limit (from the start, while the first export is cold, and after), at most two batches go at once. And at shutdown:
 * what it holds leaves at once without retries, and what is left at the budget is dropped, counted once. A fake sender whose
 * deliveries end when the test says; items are opaque to the channel.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '#src/logger.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import type { TracedItem } from '#src/observability/broadcast/broadcast-types.ts';
import { DeliveryChannel } from '#src/observability/broadcast/delivery-channel.ts';
import type { Sender } from '#src/observability/broadcast/sender.ts';

const destination = { id: 'd1', kind: 'otlp', endpoint: 'http://127.0.0.1:4318/v1/traces', secrets: { headers: {}, secretKey: null, signingSecret: null } } as unknown as ActiveDestination;
const item = {} as TracedItem;

/** A channel on a sender of `batchSize` whose every delivery waits for `release`. */
function channelOf(limit: number, batchSize: number) {
  // `lastTry`: whether each batch was sent with retries ruled out (the shutdown's flush).
  const counts = { warmed: 0, sent: 0, dropped: 0, batches: [] as number[], lastTry: [] as boolean[] };
  const pending: (() => void)[] = [];
  const sender: Sender = {
    batchSize,
    warm: async () => void (counts.warmed += 1),
    send: (items, signals) => {
      counts.batches.push(items.length);
      counts.lastTry.push(signals.lastTry.aborted);
      return new Promise<void>((resolve) => pending.push(resolve));
    },
    close: async () => {},
  };
  const channel = new DeliveryChannel({
    destination,
    sender,
    limit,
    hooks: { sent: (_kind, count) => void (counts.sent += count), dropped: (_kind, _reason, count) => void (counts.dropped += count) },
    logger: createLogger({ level: 'error' }),
  });
  const release = async () => {
    pending.shift()?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { channel, counts, release, pending };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('DeliveryChannel, its limit and its deliveries in flight', () => {
  it('warms its sender when it opens, before any item', () => {
    const { counts } = channelOf(10, 4);
    expect(counts.warmed).toBe(1);
  });

  it.each([
    // limit, batch size, items offered while the first delivery is pending, dropped
    ['a batch smaller than the limit: the limit plus a batch', 10, 4, 14, 0],
    ['one more than that', 10, 4, 15, 1],
    ['a batch larger than the limit: twice the limit', 5, 512, 10, 0],
    ['one more than that', 5, 512, 11, 1],
  ])('%s', async (_name, limit, batchSize, offered, dropped) => {
    const { channel, counts } = channelOf(limit, batchSize);
    for (let index = 0; index < offered; index += 1) {
      channel.enqueue(item);
      // The first batch leaves once full (at the batch size, or at the limit when that is smaller).
      await tick();
    }
    expect(counts.batches[0]).toBe(Math.min(limit, batchSize));
    expect(counts.dropped).toBe(dropped);
    await channel.close(0);
  });

  it('holds the limit plus a batch after the first delivery too, with a second batch in flight beside the first', async () => {
    const { channel, counts, release } = channelOf(10, 4);
    for (let index = 0; index < 4; index += 1) channel.enqueue(item);
    await tick();
    expect(counts.batches).toEqual([4]);
    await release();
    expect(counts.sent).toBe(4);
    for (let index = 0; index < 15; index += 1) channel.enqueue(item);
    // Two full batches in flight (never a third), six waiting: the limit plus a batch.
    expect(counts.batches).toEqual([4, 4, 4]);
    expect(channel.depth).toBe(14);
    expect(counts.dropped).toBe(1);
    await release();
    // One delivery ended: the next full batch takes its place.
    expect(counts.batches).toEqual([4, 4, 4, 4]);
    expect(counts.sent).toBe(8);
    await channel.close(0);
    // Counted once: sent, or dropped at close (the two batches in flight and the two waiting).
    expect(counts).toMatchObject({ sent: 8, dropped: 1 + 10 });
  });
});

describe('DeliveryChannel flushing at shutdown', () => {
  it('sends a lingering batch at once, with no retry, and closes once it is sent', async () => {
    const { channel, counts, release } = channelOf(100, 4);
    for (let index = 0; index < 6; index += 1) channel.enqueue(item);
    await tick();
    // A full batch left; two wait for company (0.2 s).
    expect(counts.batches).toEqual([4]);
    const closed = channel.flushAndClose(5_000);
    await release();
    expect(counts.batches).toEqual([4, 2]);
    await release();
    await closed;
    expect(counts).toMatchObject({ sent: 6, dropped: 0 });
    expect(counts.lastTry).toEqual([false, true]);
  });

  it('sends what waits behind two deliveries stuck in flight (an exporter waiting out a retry delay) beside them', async () => {
    const { channel, counts, pending } = channelOf(100, 4);
    for (let index = 0; index < 10; index += 1) channel.enqueue(item);
    await tick();
    // Two full batches in flight, never a third while running: the two left wait.
    expect(counts.batches).toEqual([4, 4]);
    const closed = channel.flushAndClose(300);
    expect(counts.batches).toEqual([4, 4, 2]);
    expect(counts.lastTry).toEqual([false, false, true]);
    // The flush's own delivery ends; the two stuck ones never do before the budget.
    pending[2]!();
    await closed;
    expect(counts).toMatchObject({ sent: 2, dropped: 8 });
  });

  it('drops what is left at the budget, each item counted once', async () => {
    const { channel, counts, release } = channelOf(100, 4);
    for (let index = 0; index < 10; index += 1) channel.enqueue(item);
    await tick();
    const startedAt = performance.now();
    await channel.flushAndClose(100);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect(counts).toMatchObject({ sent: 0, dropped: 10 });
    // The batch in flight ends after the budget: it was counted already.
    await release();
    expect(counts).toMatchObject({ sent: 0, dropped: 10 });
  });
});
