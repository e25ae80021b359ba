/**
 * The JSON body reader. A hot operation's body (`POST /messages`) in the common form — `Content-Type:
 * application/json` exactly, a `Content-Length`, no `Content-Encoding` or `Transfer-Encoding` — is read here
 * in one piece and parsed once, the way express.json would (UTF-8, a leading byte-order mark dropped, strict:
 * only an object or array, an empty body read as `{}`), without its per-request content-type parsing,
 * charset lookup and streaming decoder (bench/ profile: about 5% of a request). Its failures carry the body
 * parser's own `type`, `status` and `expose`, so src/http/body-errors.ts renders them alike. Every other
 * request, and every other operation, goes to express.json. Either way a body nested too deeply is refused
 * (src/http/body-depth.ts), and a charset other than UTF-8 (or US-ASCII) is refused (src/http/json-charset.ts).
 */
import type { NextFunction, Request, RequestHandler } from 'express';
import express from 'express';
import { bodyDepthError } from '#src/http/body-depth.ts';
import { noteEmptyBody, verifyBodyLength } from '#src/http/empty-body.ts';
import { jsonCharset, unsupportedCharsetError } from '#src/http/json-charset.ts';

const JSON_MEDIA_TYPE = 'application/json';
const BYTE_ORDER_MARK = 0xfeff;
const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const DECIMAL = /^\d{1,15}$/;

/** A failure shaped like the body parser's (http-errors), which src/http/body-errors.ts reads. */
function bodyError(error: Error, type: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(error, { status: 400, statusCode: 400, expose: true, type, ...extra });
}

/** express.json's strict parse of a decoded body. */
export function parseStrictJson(text: string): unknown {
  if (text.length === 0) return {};
  let first = text[0];
  for (let index = 0; first !== undefined && WHITESPACE.has(first); index += 1) first = text[index + 1];
  if (first !== '{' && first !== '[') {
    throw bodyError(new SyntaxError(`Unexpected token ${first === undefined ? 'end of input' : JSON.stringify(first)} in JSON: only an object or array is accepted`), 'entity.parse.failed', { body: text });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw bodyError(error instanceof Error ? error : new SyntaxError(String(error)), 'entity.parse.failed', { body: text });
  }
}

/** Whether a request has a body, as express.json asks it (a GET with a JSON Content-Type and no body has none). */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/** Whether the request's body is read here rather than by express.json. */
function readsHere(req: Request, url: string): boolean {
  const { headers } = req;
  return (
    req.url === url &&
    headers['content-type'] === JSON_MEDIA_TYPE &&
    headers['content-encoding'] === undefined &&
    headers['transfer-encoding'] === undefined &&
    headers['content-length'] !== undefined &&
    headers['content-length'] !== '0' &&
    DECIMAL.test(headers['content-length'])
  );
}

interface BodyRead {
  expected: number;
  received: number;
  chunks: Buffer[];
  next: NextFunction;
}

const READ = Symbol('json body read');
type ReadingRequest = Request & { [READ]?: BodyRead };

// Listeners shared by every request (an emitter calls them with itself as `this`): no closures per request.
function finish(req: ReadingRequest, error?: unknown): void {
  const read = req[READ];
  if (!read) return;
  req[READ] = undefined;
  req.off('data', onData);
  req.off('end', onEnd);
  req.off('aborted', onAborted);
  req.off('error', onError);
  read.next(error);
}

function onData(this: ReadingRequest, chunk: Buffer): void {
  const read = this[READ];
  if (!read) return;
  read.chunks.push(chunk);
  read.received += chunk.length;
}

function onError(this: ReadingRequest, error: Error): void {
  finish(this, bodyError(error, 'request.aborted'));
}

function onAborted(this: ReadingRequest): void {
  const read = this[READ];
  finish(this, bodyError(new Error('request aborted'), 'request.aborted', { code: 'ECONNABORTED', expected: read?.expected, received: read?.received }));
}

function onEnd(this: ReadingRequest): void {
  const read = this[READ];
  if (!read) return;
  if (read.received !== read.expected) {
    finish(this, bodyError(new Error('request size did not match content length'), 'request.size.invalid', { expected: read.expected, received: read.received }));
    return;
  }
  const bytes = read.chunks.length === 1 ? (read.chunks[0] as Buffer) : Buffer.concat(read.chunks, read.received);
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
  if (text.length === 0) noteEmptyBody(this);
  try {
    this.body = parseStrictJson(text);
  } catch (error) {
    finish(this, error);
    return;
  }
  finish(this, bodyDepthError(this.body, text.length));
}

/**
 * The body parser: a direct read of `url`'s common-form JSON bodies, express.json for everything else. Mount
 * it after the body limit (src/http/body-limit.ts), which refuses a body over the limit before either reads it.
 */
export function createJsonBodyParser(options: { limitBytes: number; url: string }): RequestHandler {
  const fallback = express.json({ limit: options.limitBytes, verify: verifyBodyLength });
  return (req: ReadingRequest, res, next) => {
    if (!readsHere(req, options.url)) {
      // JSON is UTF-8: a body labelled with another charset is refused before it is read (json-charset.ts).
      const charset = hasBody(req) ? jsonCharset(req.headers['content-type']) : undefined;
      if (charset?.kind === 'refused') {
        next(unsupportedCharsetError(charset.charset));
        return;
      }
      // A UTF-8-compatible label express.json does not know is read as the UTF-8 it is.
      if (charset?.kind === 'utf-8') req.headers['content-type'] = JSON_MEDIA_TYPE;
      fallback(req, res, (error?: unknown) => next(error ?? bodyDepthError(req.body)));
      return;
    }
    req[READ] = { expected: Number(req.headers['content-length']), received: 0, chunks: [], next };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onError);
  };
}
