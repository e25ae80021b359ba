/**
 * Rewrites a JSON body's `Content-Type` to plain `application/json` once express.json has read the body.
 * express-openapi-validator caches its request validator per distinct Content-Type header and compiles the
 * operation's whole request schema for each one (100+ ms for `/messages`, kept for the life of the process),
 * so a client varying a parameter (`application/json; x=1`, `x=2`, …) would cost that per request, without
 * bound. The body is already decoded by then, so the parameters have nothing left to say.
 */
import type { RequestHandler } from 'express';

const JSON_MEDIA_TYPE = 'application/json';

/** The media type of a Content-Type header value, lower case, without parameters. */
export function mediaTypeOf(header: string): string {
  return (header.split(';')[0] ?? '').trim().toLowerCase();
}

/** Middleware: after express.json, before the validator. */
export const canonicalJsonContentType: RequestHandler = (req, _res, next) => {
  const header = req.headers['content-type'];
  if (header !== undefined && header !== JSON_MEDIA_TYPE && mediaTypeOf(header) === JSON_MEDIA_TYPE) {
    req.headers['content-type'] = JSON_MEDIA_TYPE;
  }
  next();
};
