/**
 * A JSON answer written as express's `res.json` writes it, without its per-response work: `res.json` sets
 * `Content-Type: application/json` through `res.set` (a mime lookup that adds `charset=utf-8`), then
 * `res.send` parses that header and formats it again to set the charset it already has (content-type's
 * `parse` and `format`: 1.0% of the gateway's CPU on `POST /messages`, V8 profile, 2026-11-26), and reads
 * the application's JSON and ETag settings. The application sets none of them (no JSON escape, replacer or
 * spaces; ETag off in src/app.ts), so for a 200 to a POST the answer is exactly this: the same two headers
 * in the same order, the same bytes.
 *
 * Anything else goes to `res.json`: a response whose `json` was replaced (express-openapi-validator's
 * response validation, on in tests, wraps `res.json` per request to validate what is sent), one whose
 * status, Content-Type or Transfer-Encoding was already set, and an answer to HEAD.
 */
import type { Response } from 'express';

const JSON_UTF8 = 'application/json; charset=utf-8';

/** Sends `body` as JSON, byte for byte what `res.json(body)` would send. */
export function sendJson(res: Response, body: unknown): void {
  if (
    Object.hasOwn(res, 'json') ||
    res.statusCode !== 200 ||
    res.req.method === 'HEAD' ||
    res.hasHeader('content-type') ||
    res.hasHeader('transfer-encoding')
  ) {
    res.json(body);
    return;
  }
  const text = JSON.stringify(body);
  if (text === undefined) {
    res.json(body);
    return;
  }
  res.setHeader('Content-Type', JSON_UTF8);
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  res.end(text);
}
