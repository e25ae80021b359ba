/**
 * Gives every `/messages` response its generation id, set before anything can fail: in `X-Generation-Id`,
 * and in `request-id`, the header the Anthropic SDKs read into `request_id`.
 */
import { randomFillSync } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

const PREFIX = 'gen_';
// 12 random bytes give 16 base64url characters; an id takes the first 15 (90 random bits).
const RANDOM_BYTES = 12;
const RANDOM_CHARACTERS = 15;
// Milliseconds since 1970 in base 36 fill nine characters until the year 5138.
const TIME_CHARACTERS = 9;
const TIME_PATTERN = new RegExp(`^[0-9a-z]{${TIME_CHARACTERS}}$`);
// One CSPRNG call per 512 ids: a `randomBytes` call per request cost more than the rest of this middleware
// (bench/ profile); each id still takes fresh random bytes that no other id shares.
const pool = Buffer.allocUnsafe(RANDOM_BYTES * 512);
let offset = pool.length;
// The id is built as character codes and made one flat string: a concatenation of a slice is a chain of
// string objects, which the OpenTelemetry exporter's serialiser (it reads each string twice, one UTF-16 unit
// at a time) reads through at about twice the cost per character (bench/JOURNAL.md, 2026-11-27 night).
const idCodes: number[] = Array.from(`${PREFIX}${'0'.repeat(TIME_CHARACTERS + RANDOM_CHARACTERS)}`, (character) => character.charCodeAt(0));
const BASE36_CODES = Array.from('0123456789abcdefghijklmnopqrstuvwxyz', (character) => character.charCodeAt(0));
const BASE64URL_CODES = Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', (character) => character.charCodeAt(0));

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
  let time = Date.now();
  for (let index = PREFIX.length + TIME_CHARACTERS - 1; index >= PREFIX.length; index -= 1) {
    idCodes[index] = BASE36_CODES[time % 36]!;
    time = Math.floor(time / 36);
  }
  // 12 bytes are 16 base64url characters, three bytes to four; the id keeps the first 15.
  let at = PREFIX.length + TIME_CHARACTERS;
  for (let byte = offset; byte < offset + RANDOM_BYTES; byte += 3) {
    const bits = (pool[byte]! << 16) | (pool[byte + 1]! << 8) | pool[byte + 2]!;
    idCodes[at++] = BASE64URL_CODES[bits >> 18]!;
    idCodes[at++] = BASE64URL_CODES[(bits >> 12) & 63]!;
    idCodes[at++] = BASE64URL_CODES[(bits >> 6) & 63]!;
    if (at < idCodes.length) idCodes[at++] = BASE64URL_CODES[bits & 63]!;
  }
  offset += RANDOM_BYTES;
  return String.fromCharCode(...idCodes);
}

/** The time in epoch milliseconds a generation id was made at; undefined for a string that is not an id. */
export function generationIdTime(id: string): number | undefined {
  if (id.length !== PREFIX.length + TIME_CHARACTERS + RANDOM_CHARACTERS || !id.startsWith(PREFIX)) return undefined;
  const time = id.slice(PREFIX.length, PREFIX.length + TIME_CHARACTERS);
  return TIME_PATTERN.test(time) ? Number.parseInt(time, 36) : undefined;
}

/**
 * The bound of ids made at `epochMs`: every id made at that millisecond or later sorts at or above it, every
 * earlier one below (`gen_` and the time, no random part), in the C collation and the usual libc/ICU ones.
 */
export function generationIdBound(epochMs: number): string {
  return `${PREFIX}${Math.max(0, Math.floor(epochMs)).toString(36).padStart(TIME_CHARACTERS, '0')}`;
}

/** Gives a response its generation id (`X-Generation-Id`, `request-id`, `res.locals.generationId`) unless it has one. */
export function giveGenerationId(res: Response): void {
  if (typeof res.locals.generationId === 'string') return;
  const id = newGenerationId();
  res.locals.generationId = id;
  res.setHeader('X-Generation-Id', id);
  res.setHeader('request-id', id);
}

/**
 * The id an error answer names (in `request-id`, and in `request_id` of Anthropic's shape): the generation id
 * where the request has one, else a new id of the same form, set in `request-id` alone (the models and
 * management operations and an unknown path make no generation, so no `X-Generation-Id`), as Anthropic's API
 * names every answer.
 */
export function requestIdOf(res: Response): string {
  const known: unknown = res.locals.generationId ?? res.locals.requestId;
  if (typeof known === 'string') return known;
  const id = newGenerationId();
  res.locals.requestId = id;
  res.setHeader('request-id', id);
  return id;
}

/** Middleware setting `X-Generation-Id`, `request-id` and `res.locals.generationId`. */
export const assignGenerationId: RequestHandler = (_req, res, next) => {
  giveGenerationId(res);
  next();
};

/**
 * The same for express's prefix mount: only a request for one of `paths` exactly (the operations that make a
 * generation) gets one. A near miss (`/api/v1/messages/`) or an unknown path under the prefix
 * (`/api/v1/messages/batches`) makes none, so its error names itself in `request-id` alone (`requestIdOf`).
 */
export function assignGenerationIdOn(paths: readonly string[]): RequestHandler {
  const exact = new Set(paths);
  return (req, res, next) => {
    const url = req.originalUrl;
    const query = url.indexOf('?');
    if (exact.has(query === -1 ? url : url.slice(0, query))) giveGenerationId(res);
    next();
  };
}
