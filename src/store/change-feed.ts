/**
 * Tells in-process caches that stored data changed. On PGlite there is one process per data directory, so
 * a local dispatch is the whole story. On PostgreSQL several gateway instances share the data: a change is
 * dispatched locally at once and broadcast with NOTIFY; every instance LISTENs on a dedicated connection and
 * dispatches what the others publish. While that connection is down the feed reports itself unreliable and
 * caches stop trusting their entries (see {@link ChangeFeed.reliable}); on reconnect every cache is reset,
 * because notifications sent meanwhile are lost.
 */
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';

/**
 * What changed: one API key (issued or revoked), the credentials of one account, observability settings or
 * destinations (reloaded whole), or anything (reset).
 */
export type ChangeEvent = { kind: 'api-key'; hash: string } | { kind: 'byok'; accountId: string } | { kind: 'observability' } | { kind: 'reset' };

/** A listener called synchronously for every change. */
export type ChangeListener = (event: ChangeEvent) => void;

/** Publishes changes after they commit and dispatches them to the caches of every instance. */
export interface ChangeFeed {
  /** Call after the change has committed. */
  publish(event: ChangeEvent): Promise<void>;
  subscribe(listener: ChangeListener): () => void;
  /** False while changes made by other instances may go unnoticed: caches must not serve from memory then. */
  reliable(): boolean;
  close(): Promise<void>;
}

/** The PostgreSQL NOTIFY channel. */
export const CHANGE_CHANNEL = 'switchboard_changes';

class LocalDispatcher {
  readonly listeners = new Set<ChangeListener>();

  dispatch(event: ChangeEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The feed of a single-process database (PGlite): every change happens here. */
export function createLocalChangeFeed(): ChangeFeed {
  const dispatcher = new LocalDispatcher();
  return {
    publish: async (event) => dispatcher.dispatch(event),
    subscribe: (listener) => dispatcher.subscribe(listener),
    reliable: () => true,
    close: async () => {},
  };
}

function parseMessage(payload: string | undefined): { origin?: string; event?: ChangeEvent } {
  try {
    return JSON.parse(payload ?? '') as { origin?: string; event?: ChangeEvent };
  } catch {
    return {};
  }
}

/** The feed of a shared PostgreSQL: LISTEN on one pooled-out connection, NOTIFY through the pool. */
export async function createPostgresChangeFeed(pool: Pool, options: { onError?: (error: unknown) => void } = {}): Promise<ChangeFeed> {
  const dispatcher = new LocalDispatcher();
  const origin = randomUUID();
  let listener: PoolClient | undefined;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;

  // Every client this takes is released on every path: one left checked out would hold `pool.end()` at
  // shutdown for good (a backend killed during LISTEN, or the feed closed while a reconnect was under way).
  const connect = async (): Promise<void> => {
    const client = await pool.connect();
    if (closed) {
      client.release();
      return;
    }
    client.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL) return;
      const parsed = parseMessage(message.payload);
      // Our own changes were dispatched locally when published.
      if (parsed.origin === origin) return;
      dispatcher.dispatch(parsed.event ?? { kind: 'reset' });
    });
    client.on('error', (error) => {
      options.onError?.(error);
      dropListener(client);
    });
    try {
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (error) {
      client.release(true);
      throw error;
    }
    if (closed) {
      client.release(true);
      return;
    }
    listener = client;
    // Whatever changed while nobody listened is unknown: every cache starts over.
    dispatcher.dispatch({ kind: 'reset' });
  };

  const dropListener = (client: PoolClient) => {
    if (listener !== client) return;
    listener = undefined;
    client.release(true);
    dispatcher.dispatch({ kind: 'reset' });
    scheduleReconnect();
  };

  const scheduleReconnect = () => {
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect().catch((error: unknown) => {
        options.onError?.(error);
        scheduleReconnect();
      });
    }, 1_000);
    retryTimer.unref();
  };

  await connect();
  return {
    publish: async (event) => {
      dispatcher.dispatch(event);
      // The change has committed: a failed broadcast must not turn it into an error for the client.
      await pool.query('select pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify({ origin, event })]).catch((error: unknown) => options.onError?.(error));
    },
    subscribe: (listenerFunction) => dispatcher.subscribe(listenerFunction),
    reliable: () => listener !== undefined,
    close: async () => {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      const client = listener;
      listener = undefined;
      if (client) {
        await client.query(`UNLISTEN ${CHANGE_CHANNEL}`).catch(() => {});
        client.release();
      }
    },
  };
}
