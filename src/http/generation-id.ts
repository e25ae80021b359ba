/**
 * Gives every `/messages` response its generation id, set before anything can fail: in `X-Generation-Id`,
 * and in `request-id`, the header the Anthropic SDKs read into `request_id`.
 */
import { randomFillSync } from 'node:crypto';
import type { RequestHandler } from 'express';

// 12 random bytes give 16 base64url characters; an id takes the first 15 (90 random bits).
const RANDOM_BYTES = 12;
const RANDOM_CHARACTERS = 15;
// Milliseconds since 1970 in base 36 fill nine characters until the year 5138.
const TIME_CHARACTERS = 9;
// One CSPRNG call per 512 ids: a `randomBytes` call per request cost more than the rest of this middleware
// (bench/ profile); each id still takes fresh random bytes that no other id shares.
const pool = Buffer.allocUnsafe(RANDOM_BYTES * 512);
let offset = pool.length;

/**
 * A new generation id: `gen_`, the time in milliseconds as nine base-36 characters (digits and lowercase
 * letters, which sort the same in the C and the usual libc/ICU collations), then 15 random base64url
 * characters. Ids sort by time, so the records' primary-key index takes each new id at its right edge:
 * with random ids every insert touched a random index page, and on embedded PGlite, whose buffers are small
 * (src/store/database.ts), that meant reading and writing back an 8 kB page per record (bench/
 * observability-cost.ts).
 */
export function newGenerationId(): string {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const random = pool.toString('base64url', offset, offset + RANDOM_BYTES);
  offset += RANDOM_BYTES;
  return `gen_${Date.now().toString(36).padStart(TIME_CHARACTERS, '0')}${random.slice(0, RANDOM_CHARACTERS)}`;
}

/** Middleware setting `X-Generation-Id`, `request-id` and `res.locals.generationId`. */
export const assignGenerationId: RequestHandler = (_req, res, next) => {
  const id = newGenerationId();
  res.locals.generationId = id;
  res.setHeader('X-Generation-Id', id);
  res.setHeader('request-id', id);
  next();
};
