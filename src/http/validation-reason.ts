/**
 * Reasons for request-validator complaints whose own words ("must be string") do not tell a client what to
 * send instead. A complaint listed here makes the 400's message `Invalid request parameters: <reason>`; the
 * validator's details stay as they are. A plugin id the gateway does not have is named from the body.
 */
import type { ErrorDetail } from '#src/errors.ts';
import { KEY_MUST_BE_STRING } from '#src/byok/parse-provider-key.ts';
import { KNOWN_PLUGIN_IDS, isKnownPluginId } from '#src/plugins/plugin-list.ts';
import { NUL_COMPLAINT } from '#src/http/reject-nul-characters.ts';

interface FieldReason {
  path: string;
  message: string;
  reason: string;
}

// `/body/key` is only a request field of the BYOK create and update bodies: a JSON object there is the old
// region-bound form, now sent as JSON text inside the string. `/body/allowed_models` and `/body/allowed_user_ids`
// are theirs too: an empty list reads as "no restriction" to many, but would let the credential serve nothing.
const FIELD_REASONS: readonly FieldReason[] = [
  { path: '/body/key', message: 'must be string', reason: KEY_MUST_BE_STRING },
  {
    path: '/body/allowed_models',
    message: 'must NOT have fewer than 1 items',
    reason: 'allowed_models is empty: the credential would serve no model, yet with is_required still remove shared capacity for every model (list at least one model, or write null for no restriction)',
  },
  {
    path: '/body/allowed_user_ids',
    message: 'must NOT have fewer than 1 items',
    reason: 'allowed_user_ids is empty: the credential would serve no caller, yet with is_required or is_byok_only still remove shared capacity (list at least one user id, or write null for no restriction)',
  },
];

const PLUGIN_ID_PATH = /^\/body\/plugins\/(\d+)\/id$/;

// Complaints about the spec's patterns that say only the pattern: gateway text kept in generation records
// (`user`, `session_id`), which PostgreSQL cannot store with a NUL in it, an OTLP destination's header
// values, which Node's HTTP client sends only within these characters, and a destination's credentials, which
// must not be blank.
const PATTERN_REASONS: ReadonlyMap<string, string> = new Map([
  ['must match pattern "^[^\\u0000]*$"', NUL_COMPLAINT],
  ['must match pattern "^[\\t\\x20-\\x7E\\x80-\\xFF]+$"', 'must be text an HTTP header can carry: tabs, printable ASCII and Latin-1, no line breaks or other control characters'],
  ['must match pattern "\\S"', 'is blank (only white space): send the credential itself'],
]);

/** A body path as a client writes it: `/body/a/0/b` is `a[0].b`. */
export function fieldName(pointer: string): string {
  const segments = pointer.replace(/^\/body\/?/, '').split('/');
  return segments.map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}

// A complaint about `plugins[i].id` whose value is not an id this gateway has: the reason names it.
function unknownPluginReason(detail: ErrorDetail, body: unknown): string | null {
  const index = PLUGIN_ID_PATH.exec(detail.path ?? '')?.[1];
  if (index === undefined) return null;
  const plugins = (body as { plugins?: unknown } | null)?.plugins;
  const id = Array.isArray(plugins) ? (plugins[Number(index)] as { id?: unknown } | undefined)?.id : undefined;
  if (id === undefined || isKnownPluginId(id)) return null;
  return `plugins[${index}].id: unknown plugin ${JSON.stringify(id)} (this gateway has ${KNOWN_PLUGIN_IDS.join(', ')})`;
}

// ajv's words for a list holding one value twice: the later index first.
const DUPLICATE = /^must NOT have duplicate items \(items ## (\d+) and (\d+) are identical\)$/;

// A body list holding a value twice: both places and the value, so the client sees which entry to drop.
function duplicateReason(detail: ErrorDetail, body: unknown): string | null {
  const match = DUPLICATE.exec(detail.message);
  const path = detail.path ?? '';
  if (!match || !path.startsWith('/body')) return null;
  const [later, earlier] = [Number(match[1]), Number(match[2])].sort((a, b) => b - a);
  let list: unknown = body;
  for (const segment of path.split('/').slice(2)) list = typeof list === 'object' && list !== null ? (list as Record<string, unknown>)[segment] : undefined;
  const value = Array.isArray(list) ? JSON.stringify(list[later!]) : undefined;
  const shown = value === undefined ? '' : `: ${value.length > 120 ? `${value.slice(0, 119)}…` : value}`;
  const name = fieldName(path);
  return `${name}[${later}] repeats ${name}[${earlier}]${shown} (each entry may be listed once)`;
}

/** The reason for the first listed complaint among the details, or null when none is listed. */
export function validationReason(details: readonly ErrorDetail[], body?: unknown): string | null {
  for (const detail of details) {
    const known = FIELD_REASONS.find((entry) => entry.path === detail.path && entry.message === detail.message);
    if (known) return known.reason;
    const plugin = unknownPluginReason(detail, body);
    if (plugin) return plugin;
    const duplicate = duplicateReason(detail, body);
    if (duplicate) return duplicate;
    const pattern = PATTERN_REASONS.get(detail.message);
    if (pattern) return `${fieldName(detail.path ?? '')} ${pattern}`;
  }
  return null;
}
