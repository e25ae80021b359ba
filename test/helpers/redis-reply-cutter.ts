/**
 * A proxy to a Redis server that, once armed with a Lua script, lets the script's next call through to Redis and cuts
 * the connection instead of passing its reply back: Redis has run the script, the gateway sees a dropped
 * connection. ioredis sends a defined command by EVALSHA once the script is loaded, so the call is recognised
 * by the script's SHA-1 (a first call, sent as EVAL after NOSCRIPT, is not).
 */
import { createHash } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** The proxy a test controls. */
export interface ReplyCutter {
  port: number;
  /** Cuts the reply to the next call of `script`. */
  arm(script: string): void;
  /** How many replies it has cut. */
  readonly cut: number;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 to the Redis server on `redisPort`. */
export async function startReplyCutter(redisPort: number): Promise<ReplyCutter> {
  const sockets = new Set<Socket>();
  const state: { armed: string | null; cut: number } = { armed: null, cut: 0 };
  const server: Server = createServer((client) => {
    const upstream = connect(redisPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    let cutNextReply = false;
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (state.armed !== null && text.includes(state.armed)) {
        state.armed = null;
        cutNextReply = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cutNextReply) {
        // Redis has run the script: the reply never reaches the gateway.
        state.cut += 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    arm: (script) => void (state.armed = createHash('sha1').update(script).digest('hex')),
    get cut() {
      return state.cut;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
