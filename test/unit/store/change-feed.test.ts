/**
 * The PostgreSQL change feed gives back every connection it takes, whatever happens to it: a client left
 * checked out holds `pool.end()` at shutdown for good. The pool here is a stand-in whose `connect` and
 * `LISTEN` the test settles, so the interleavings that lost a client (a backend killed during LISTEN, the feed
 * closed while a reconnect was under way) happen on cue.
 */
import { EventEmitter } from 'node:events';
import type { Pool } from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPostgresChangeFeed } from '#src/store/change-feed.ts';

/** A pooled client: its LISTEN waits until the test answers it; `released` records how it was given back. */
class StandInClient extends EventEmitter {
  released: 'kept' | 'destroyed' | undefined;
  answerListen: ((error?: Error) => void) | undefined;

  query(text: string): Promise<void> {
    if (!text.startsWith('LISTEN')) return Promise.resolve();
    return new Promise((resolve, reject) => (this.answerListen = (error) => (error ? reject(error) : resolve())));
  }

  release(destroy?: boolean | Error): void {
    if (this.released) throw new Error('released twice');
    this.released = destroy ? 'destroyed' : 'kept';
  }
}

/** A pool whose every `connect` waits until the test hands out the next client. */
function standInPool() {
  const clients: StandInClient[] = [];
  const waiting: ((client: StandInClient) => void)[] = [];
  const pool = {
    connect: () => new Promise<StandInClient>((resolve) => waiting.push(resolve)),
    query: () => Promise.resolve(),
  };
  return {
    pool: pool as unknown as Pool,
    clients,
    /** Hands the oldest waiting `connect` a new client. */
    handOut(): StandInClient {
      const give = waiting.shift();
      if (!give) throw new Error('nobody is connecting');
      const client = new StandInClient();
      clients.push(client);
      give(client);
      return client;
    },
    connecting: () => waiting.length,
  };
}

/** A feed listening on its first client, over a stand-in pool. */
async function openFeed() {
  const stand = standInPool();
  const opening = createPostgresChangeFeed(stand.pool);
  await vi.advanceTimersByTimeAsync(0);
  const first = stand.handOut();
  await vi.advanceTimersByTimeAsync(0);
  first.answerListen?.();
  return { stand, feed: await opening, first };
}

/** The listening client's backend is killed, as `pg_terminate_backend` does. */
const terminate = (client: StandInClient) => client.emit('error', new Error('terminating connection due to administrator command'));

describe('createPostgresChangeFeed', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives back a client whose LISTEN failed, and connects again', async () => {
    const { stand, feed, first } = await openFeed();
    terminate(first);
    expect(first.released).toBe('destroyed');
    await vi.advanceTimersByTimeAsync(1_000);
    const second = stand.handOut();
    await vi.advanceTimersByTimeAsync(0);
    second.answerListen?.(new Error('Connection terminated unexpectedly'));
    await vi.advanceTimersByTimeAsync(0);
    expect(second.released).toBe('destroyed');
    expect(feed.reliable()).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    const third = stand.handOut();
    await vi.advanceTimersByTimeAsync(0);
    third.answerListen?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(feed.reliable()).toBe(true);
    await feed.close();
    expect(third.released).toBe('kept');
  });

  it('gives back the client of a reconnect that was under way when the feed closed', async () => {
    const { stand, feed, first } = await openFeed();
    terminate(first);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(stand.connecting()).toBe(1);
    await feed.close();
    const late = stand.handOut();
    await vi.advanceTimersByTimeAsync(0);
    expect(late.released).toBe('kept');
    expect(late.answerListen).toBeUndefined();
  });

  it('gives back a client whose LISTEN was still running when the feed closed', async () => {
    const { stand, feed, first } = await openFeed();
    terminate(first);
    await vi.advanceTimersByTimeAsync(1_000);
    const listening = stand.handOut();
    await vi.advanceTimersByTimeAsync(0);
    await feed.close();
    listening.answerListen?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(listening.released).toBe('destroyed');
    expect(feed.reliable()).toBe(false);
  });
});
