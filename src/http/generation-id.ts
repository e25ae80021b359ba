/** Gives every `/messages` response an `X-Generation-Id` header, set before anything can fail. */
import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

/** A new generation id: `gen_` and 24 random base64url characters. */
export function newGenerationId(): string {
  return `gen_${randomBytes(18).toString('base64url')}`;
}

/** Middleware setting `X-Generation-Id` and `res.locals.generationId`. */
export const assignGenerationId: RequestHandler = (_req, res, next) => {
  const id = newGenerationId();
  res.locals.generationId = id;
  res.setHeader('X-Generation-Id', id);
  next();
};
