/**
 * An empty body where the operation requires one. The JSON body parsers read zero bytes as `{}` (express.json
 * does, and src/http/json-body.ts does as it does), so a `PATCH` sent with `Content-Type: application/json`
 * and nothing else answered 200 as a change of nothing, while the same request with a body of spaces was a
 * 400 "not valid JSON". The parsers note which requests had no bytes; the check runs inside the validator's
 * chain, after authentication and before body validation, so the client hears "the body is empty" rather than
 * a 200, or a complaint about the first required property.
 */
import type { Request, RequestHandler } from 'express';
import { BadRequestError } from '#src/errors.ts';

/** What a 400 for an empty body says after the standard prefix. @see the spec's info description */
export const EMPTY_BODY_REASON = 'the body is empty: send a JSON object';

const JSON_TYPE = /^\s*application\/json\s*(;|$)/i;

// Requests whose JSON body had no bytes (a byte-order mark alone counts as none).
const emptyBodies = new WeakSet<object>();

/** Notes that `req`'s body had no bytes. */
export function noteEmptyBody(req: object): void {
  emptyBodies.add(req);
}

/** express.json's `verify` hook: notes a body read as zero bytes. */
export function verifyBodyLength(req: object, _res: unknown, body: Buffer): void {
  if (body.length === 0 || (body.length === 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf)) noteEmptyBody(req);
}

interface OperationMetadata {
  openapi?: { schema?: { requestBody?: { required?: boolean } } };
}

/**
 * Refuses an empty body on an operation whose spec requires one. A request sent as `application/json` with no
 * body at all (neither `Content-Length` nor `Transfer-Encoding`) is empty too; one of another type, or none,
 * is left to the validator's 415, which names the type.
 */
export const rejectEmptyBody: RequestHandler = (req: Request & OperationMetadata, _res, next) => {
  if (req.openapi?.schema?.requestBody?.required !== true) {
    next();
    return;
  }
  const none = req.body === undefined && JSON_TYPE.test(req.headers['content-type'] ?? '');
  next(emptyBodies.has(req) || none ? new BadRequestError(EMPTY_BODY_REASON) : undefined);
};
