/**
 * The ioredis client class, loaded when a Redis connection is first made, and how a connection ends. Without
 * `REDIS_URL` the gateway never talks to Redis, and loading the client costs several megabytes of memory for
 * nothing. ioredis is CommonJS, so an `import` elsewhere (tests) gets this same class.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

const require = createRequire(import.meta.url);

/** The `Redis` client class of ioredis. */
export function loadRedisClass(): typeof Redis {
  return (require('ioredis') as typeof import('ioredis')).Redis;
}

/**
 * Ends a connection with QUIT, so that replies in flight arrive first, but waits at most `timeoutMs`: a QUIT
 * waits for its reply, and a Redis that stopped answering would otherwise hold the gateway's shutdown forever.
 */
export async function quitRedis(client: Redis, timeoutMs = 1_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  try {
    if ((await Promise.race([client.quit(), late])) === 'late') client.disconnect();
  } catch {
    client.disconnect();
  } finally {
    clearTimeout(timer);
  }
}
