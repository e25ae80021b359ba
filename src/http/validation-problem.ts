/**
 * The 400's message for a refusal no special reason covers: the first complaint's place, as a client writes it,
 * and what is wrong there (`max_tokens: is required`, `query parameter limit: must be <= 1000`). Without it the
 * message said only `Invalid request parameters` and a client had to read `details` to learn anything.
 */
import type { ErrorDetail } from '#src/errors.ts';
import { fieldName } from '#src/http/validation-reason.ts';

// Where the validator puts each part of a request, and how a client calls that part.
const LOCATIONS: readonly { prefix: string; name: string }[] = [
  { prefix: '/query/', name: 'query parameter' },
  { prefix: '/params/', name: 'path parameter' },
  { prefix: '/path/', name: 'path parameter' },
  { prefix: '/headers/', name: 'header' },
];

const REQUIRED = /^must have required property /;
const EXTRA = /^must NOT have (additional|unevaluated) properties$/;
const TYPES = /^must be [a-z]+(,[a-z]+)+$/;
const ENUM = /^must be equal to one of the allowed values: /;
const DEPENDENT = /^must have property (\S+) when property (\S+) is present$/;
const UNKNOWN_QUERY = /^Unknown query parameter '.*'$/s;
const EMPTY_QUERY_VALUE = /^Empty value found for query parameter '.*'$/s;
const RESERVED_CHARACTERS = /^Parameter '.*' must be url encoded\. Its value may not contain reserved characters\.$/s;
// The validator's words for a path whose percent-encoding does not decode (`%`, `%E0%A4%A`); its detail's path is the URL path.
const MALFORMED_PATH = "malformed uri'";
// A query string holding `=` with no name before it (`?=x`, `?a=1&=`): the validator names it ''.
const EMPTY_QUERY_NAME = '/query/';

/** The place a detail's path names: `max_tokens`, `plugins[0].id`, `query parameter limit`, `the body`. */
export function placeName(path: string): string {
  if (path === '/body' || path === '') return 'the body';
  if (path.startsWith('/body/')) return fieldName(path);
  const location = LOCATIONS.find((entry) => path.startsWith(entry.prefix));
  return location ? `${location.name} ${path.slice(location.prefix.length)}` : path;
}

// ajv's words where they say the property's name again or nothing a client can act on; kept otherwise.
function problem(message: string): string {
  if (REQUIRED.test(message)) return 'is required';
  if (EXTRA.test(message)) return 'is not a known property here (remove it)';
  if (UNKNOWN_QUERY.test(message)) return 'is not a parameter of this operation (remove it)';
  if (EMPTY_QUERY_VALUE.test(message)) return 'is empty: give it a value or leave it out';
  if (RESERVED_CHARACTERS.test(message)) return 'holds a reserved character (such as `+`, `&` or `#`) unencoded: percent-encode it (`+` is `%2B`)';
  const dependent = DEPENDENT.exec(message);
  if (dependent) return `is required when ${dependent[2]} is present`;
  // A nullable type (`must be string,null`) and a nullable enum, whose null ajv lists as nothing.
  if (TYPES.test(message)) return `must be ${message.slice(8).split(',').join(' or ')}`;
  if (ENUM.test(message) && message.endsWith(', ')) return `${message}null`;
  return message;
}

/**
 * A refused query value holding a space: most often a `+` sent unencoded (a time zone offset such as
 * `+01:00`), which a query string reads as a space. Said, since the client never wrote the space.
 */
function plusAsSpaceHint(path: string, query: unknown): string {
  if (!path.startsWith('/query/') || typeof query !== 'object' || query === null) return '';
  const value = (query as Record<string, unknown>)[path.slice('/query/'.length)];
  return typeof value === 'string' && value.includes(' ') ? ' (a `+` in a query string reads as a space: write it `%2B`)' : '';
}

/** Whether the detail's place is a query parameter the query string gives more than once (the parser's list). */
function isRepeatedQueryParameter(path: string, query: unknown): boolean {
  if (!path.startsWith('/query/') || typeof query !== 'object' || query === null) return false;
  const name = path.slice('/query/'.length);
  return Object.hasOwn(query, name) && Array.isArray((query as Record<string, unknown>)[name]);
}

/**
 * `<place>: <problem>` for the first of the details, or null when there is none. Every wrong type at that
 * place is named at once (`must be string or array`), as a value of neither type gets one complaint per type.
 */
export function firstProblem(details: readonly ErrorDetail[], query?: unknown): string | null {
  const first = details[0];
  if (!first) return null;
  const path = first.path ?? '';
  if (first.message === MALFORMED_PATH) return `the path ${path} is not valid percent-encoding: each \`%\` must begin a UTF-8 byte written \`%XX\` (\`%25\` is \`%\` itself)`;
  if (isRepeatedQueryParameter(path, query)) return `${placeName(path)}: is given more than once (give it once)`;
  if (path === EMPTY_QUERY_NAME) return 'the query string has a parameter without a name (`=` with nothing before it, as in `?=value`): name it or remove it';
  const types = details.filter((detail) => (detail.path ?? '') === path && /^must be [a-z]+$/.test(detail.message)).map((detail) => detail.message.slice(8));
  const said = /^must be [a-z]+$/.test(first.message) && types.length > 1 ? `must be ${[...new Set(types)].join(' or ')}` : problem(first.message);
  // The reserved-character complaint says the same of the `+` already.
  const hint = RESERVED_CHARACTERS.test(first.message) ? '' : plusAsSpaceHint(path, query);
  return `${placeName(path)}: ${said}${hint}`;
}
