/**
 * What a client is told when its request body cannot be read as the operation's JSON: a `Content-Type` the
 * operation does not take (415, naming the type received or saying none was sent), a charset or
 * `Content-Encoding` the body parser does not decode (415), a body that is not JSON or not in its declared
 * `Content-Encoding` (400), or too large (413).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { STANDARD_MESSAGES } from '#src/errors.ts';

/** Only the parts of a request the messages below read. */
export interface BodyRequestContext {
  headers: IncomingHttpHeaders;
  /** The operation the validator matched; its `requestBody.content` names the media types it takes. */
  openapi?: { schema?: { operationId?: string; requestBody?: { content?: Record<string, unknown> } } };
}

/** The body parser's (body-parser, raw-body) failure, as far as it is read here. */
export interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
  charset?: string;
  encoding?: string;
  /** The decoded body text, on a parse failure. */
  body?: unknown;
  /** zlib's, on a body that does not decompress. */
  errno?: number;
  code?: string;
}

const UNSUPPORTED = 'Unsupported Media Type';
// What may be echoed from a header: a media type, charset or coding token. Anything else (a fuzzer's bytes,
// a pasted secret) is not repeated back.
const TOKEN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}(\/[a-z0-9][a-z0-9!#$&^_.+-]{0,62})?$/;

function echoable(value: string | undefined): string | undefined {
  const text = value?.trim().toLowerCase();
  return text && TOKEN.test(text) ? text : undefined;
}

/** The 415 message for a `Content-Type` the operation does not take. */
export function unsupportedMediaTypeMessage(request: BodyRequestContext | undefined): string {
  const accepted = Object.keys(request?.openapi?.schema?.requestBody?.content ?? {});
  const expected = accepted.length > 0 ? accepted.join(' or ') : 'application/json';
  const header = request?.headers['content-type'];
  if (header === undefined || header.trim() === '') return `${UNSUPPORTED}: Content-Type must be ${expected}, but the request has none`;
  const received = echoable(header.split(';')[0]);
  return `${UNSUPPORTED}: Content-Type must be ${expected}, got ${received ?? 'a value that is not a media type'}`;
}

/** Whether a thrown value is the body parser's own failure. */
export function isBodyParserError(error: unknown): error is BodyParserError {
  const candidate = error as BodyParserError | null;
  if (candidate?.expose !== true || typeof candidate.status !== 'number') return false;
  return typeof candidate.type === 'string' || isDecompressionError(candidate);
}

// body-parser passes a body that does not decompress (gzip, deflate, br) on as zlib's own error, given status
// 400 but no `type`.
function isDecompressionError(error: BodyParserError): boolean {
  return error.type === undefined && error.status === 400 && typeof error.errno === 'number' && typeof error.code === 'string';
}

/**
 * What a body the strict parse refused holds when it is JSON after all, but not an object or array (`null`, a
 * string, a number, `true`): the parser calls it a syntax error, the client deserves to hear what it sent.
 */
function jsonValueKind(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
  } catch {
    return undefined;
  }
  if (value === null) return 'null';
  if (typeof value === 'object') return undefined;
  return typeof value === 'string' ? 'a string' : typeof value === 'number' ? 'a number' : `${String(value)}`;
}

/** The status and message of a body parser failure. */
export function fromBodyParserError(error: BodyParserError): { status: number; message: string } {
  if (isDecompressionError(error)) return { status: 400, message: `${STANDARD_MESSAGES[400]}: the body is not valid for its Content-Encoding` };
  switch (error.type) {
    case 'entity.parse.failed': {
      const value = jsonValueKind(error.body);
      return { status: 400, message: `${STANDARD_MESSAGES[400]}: ${value ? `the body must be a JSON object, got ${value}` : 'the body is not valid JSON'}` };
    }
    case 'entity.too.large':
      return { status: 413, message: STANDARD_MESSAGES[413] };
    case 'charset.unsupported':
      return { status: 415, message: `${UNSUPPORTED}: the body must be UTF-8, got charset ${echoable(error.charset) ?? 'unknown'}` };
    case 'encoding.unsupported':
      return { status: 415, message: `${UNSUPPORTED}: Content-Encoding ${echoable(error.encoding) ?? 'unknown'} is not supported` };
    default:
      // request.aborted, request.size.invalid and the like: the body did not arrive as announced.
      return { status: 400, message: `${STANDARD_MESSAGES[400]}: the body could not be read` };
  }
}
