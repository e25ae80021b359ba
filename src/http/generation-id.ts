/**
 * Gives every `/messages` response its generation id, set before anything can fail: in `X-Generation-Id`,
 * and in `request-id`, the header the Anthropic SDKs read into `request_id`.
 */
import { randomFillSync } from 'node:crypto';
import type { RequestHandler } from 'express';

const ID_BYTES = 18;
// One CSPRNG call per 512 ids: a `randomBytes` call per request cost more than the rest of this middleware
// (bench/ profile); each id still takes 18 fresh random bytes that no other id shares.
const pool = Buffer.allocUnsafe(ID_BYTES * 512);
let offset = pool.length;

/** A new generation id: `gen_` and 24 random base64url characters. */
export function newGenerationId(): string {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = `gen_${pool.toString('base64url', offset, offset + ID_BYTES)}`;
  offset += ID_BYTES;
  return id;
}

/** Middleware setting `X-Generation-Id`, `request-id` and `res.locals.generationId`. */
export const assignGenerationId: RequestHandler = (_req, res, next) => {
  const id = newGenerationId();
  res.locals.generationId = id;
  res.setHeader('X-Generation-Id', id);
  res.setHeader('request-id', id);
  next();
};
