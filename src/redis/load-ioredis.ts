/**
 * The ioredis client class, loaded when a Redis connection is first made. Without `REDIS_URL` the gateway
 * never talks to Redis, and loading the client costs several megabytes of memory for nothing. ioredis is
 * CommonJS, so an `import` elsewhere (tests) gets this same class.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';

const require = createRequire(import.meta.url);

/** The `Redis` client class of ioredis. */
export function loadRedisClass(): typeof Redis {
  return (require('ioredis') as typeof import('ioredis')).Redis;
}
