/**
 * A small hand-written validator for the configuration file: readers that check one value, report each problem
 * with its path inside the file (`models.anthropic/claude-sonnet-4.5.endpoints[0].pricing.input`), and return
 * the typed value or `INVALID`. Secret values are never echoed in a message.
 */
import { userInfoShown } from '#src/http/url-user-info.ts';

/** One thing wrong with the configuration file: where, and what. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** Marks a value that failed its check (its problem is already reported). */
export const INVALID: unique symbol = Symbol('invalid');

/** Checks one value at a path, reporting problems, returning the typed value or `INVALID`. */
export type Reader<T> = (value: unknown, path: string, problems: ConfigProblem[]) => T | typeof INVALID;

/** The type a reader produces. */
export type ReadType<R> = R extends Reader<infer T> ? T : never;

/** The path of a key under a path; keys are written as they are, dots and slashes included. */
export function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Whether a value is a plain mapping (not an array, not null). */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short description of what was found, for messages. Strings are quoted unless secret. */
export function describeValue(value: unknown, secret = false): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (secret) return `a ${typeof value}`;
  if (typeof value === 'string') {
    return value.length > 60 ? `"${value.slice(0, 57)}..."` : JSON.stringify(value);
  }
  return String(value);
}

/** A string, optionally matching a pattern (explained by `expected`). */
export function string(options: { pattern?: RegExp; expected?: string; secret?: boolean; minLength?: number } = {}): Reader<string> {
  return (value, path, problems) => {
    if (typeof value !== 'string') {
      problems.push({ path, message: `must be a string, got ${describeValue(value, options.secret)}` });
      return INVALID;
    }
    if (options.minLength !== undefined && value.length < options.minLength) {
      problems.push({ path, message: 'must not be empty' });
      return INVALID;
    }
    if (options.pattern && !options.pattern.test(value)) {
      problems.push({ path, message: `must be ${options.expected ?? `a string matching ${options.pattern}`}, got ${describeValue(value, options.secret)}` });
      return INVALID;
    }
    return value;
  };
}

/** An http(s) URL. */
export function url(): Reader<string> {
  return (value, path, problems) => {
    const text = string()(value, path, problems);
    if (text === INVALID) return INVALID;
    if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) {
      problems.push({ path, message: `must be an http or https URL, got ${describeValue(userInfoShown(text))}` });
      return INVALID;
    }
    return text.replace(/\/+$/, '');
  };
}

// A number or boolean written as a string: what `${VAR}` gives (interpolated values are strings), so that
// `timeout_ms: ${FETCH_TIMEOUT_MS:-15000}` works. Only plain decimal notation, as YAML's own numbers.
const NUMBER_TEXT = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** A finite number, optionally at least `minimum`, optionally an integer; also a string holding one (`${VAR}`). */
export function number(options: { minimum?: number; integer?: boolean } = {}): Reader<number> {
  return (text, path, problems) => {
    const value = typeof text === 'string' && NUMBER_TEXT.test(text) ? Number(text) : text;
    const kind = options.integer ? 'an integer' : 'a number';
    const bound = options.minimum === undefined ? '' : ` >= ${options.minimum}`;
    const valid =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      (!options.integer || Number.isInteger(value)) &&
      (options.minimum === undefined || value >= options.minimum);
    if (!valid) {
      problems.push({ path, message: `must be ${kind}${bound}, got ${describeValue(value)}` });
      return INVALID;
    }
    return value;
  };
}

/** A boolean; also the string `true` or `false` (`${VAR}`). */
export function boolean(): Reader<boolean> {
  return (text, path, problems) => {
    const value = text === 'true' ? true : text === 'false' ? false : text;
    if (typeof value !== 'boolean') {
      problems.push({ path, message: `must be true or false, got ${describeValue(value)}` });
      return INVALID;
    }
    return value;
  };
}

/** One of a fixed list of strings. */
export function oneOf<const T extends string>(values: readonly T[]): Reader<T> {
  return (value, path, problems) => {
    if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
      problems.push({ path, message: `must be one of ${values.join(', ')}, got ${describeValue(value)}` });
      return INVALID;
    }
    return value as T;
  };
}

/** The inner reader's value, or null. */
export function nullable<T>(inner: Reader<T>): Reader<T | null> {
  return (value, path, problems) => (value === null ? null : inner(value, path, problems));
}

/** A list whose items each pass `item`. */
export function list<T>(item: Reader<T>, options: { minItems?: number; unique?: boolean } = {}): Reader<T[]> {
  return (value, path, problems) => {
    if (!Array.isArray(value)) {
      problems.push({ path, message: `must be a list, got ${describeValue(value)}` });
      return INVALID;
    }
    if (options.minItems !== undefined && value.length < options.minItems) {
      problems.push({ path, message: `must have at least ${options.minItems} item(s)` });
      return INVALID;
    }
    if (options.unique && new Set(value).size !== value.length) {
      problems.push({ path, message: 'must not repeat an item' });
      return INVALID;
    }
    const items = value.map((entry, index) => item(entry, `${path}[${index}]`, problems));
    return items.includes(INVALID) ? INVALID : (items as T[]);
  };
}

/** A mapping from keys (checked by `keyPattern`) to values each passing `entry`. */
export function dictionary<T>(entry: Reader<T>, options: { keyPattern?: RegExp; expectedKey?: string } = {}): Reader<Record<string, T>> {
  return (value, path, problems) => {
    if (!isMapping(value)) {
      problems.push({ path, message: `must be a mapping, got ${describeValue(value)}` });
      return INVALID;
    }
    const result: Record<string, T> = {};
    let valid = true;
    for (const [key, raw] of Object.entries(value)) {
      const keyPath = childPath(path, key);
      if (options.keyPattern && !options.keyPattern.test(key)) {
        problems.push({ path: keyPath, message: `is not ${options.expectedKey ?? 'a valid key'}` });
        valid = false;
        continue;
      }
      const read = entry(raw, keyPath, problems);
      if (read === INVALID) valid = false;
      else result[key] = read;
    }
    return valid ? result : INVALID;
  };
}

type Shape = Record<string, Reader<unknown>>;

/** What `record` produces: every field optional unless listed as required. */
export type RecordOf<S extends Shape, R extends keyof S> = { [K in R]: ReadType<S[K]> } & { [K in Exclude<keyof S, R>]?: ReadType<S[K]> };

/** A mapping with known fields; unknown fields are problems (they are usually typos). */
export function record<S extends Shape, R extends keyof S & string = never>(shape: S, required: readonly R[] = []): Reader<RecordOf<S, R>> {
  return (value, path, problems) => {
    if (!isMapping(value)) {
      problems.push({ path, message: `must be a mapping, got ${describeValue(value)}` });
      return INVALID;
    }
    const result: Record<string, unknown> = {};
    let valid = true;
    for (const [key, raw] of Object.entries(value)) {
      const reader = Object.hasOwn(shape, key) ? shape[key] : undefined;
      if (!reader) {
        problems.push({ path: childPath(path, key), message: `is not a known field (expected one of ${Object.keys(shape).join(', ')})` });
        valid = false;
        continue;
      }
      const read = reader(raw, childPath(path, key), problems);
      if (read === INVALID) valid = false;
      else result[key] = read;
    }
    for (const key of required) {
      if (!Object.hasOwn(value, key)) {
        problems.push({ path: childPath(path, key), message: 'is required' });
        valid = false;
      }
    }
    return valid ? (result as RecordOf<S, R>) : INVALID;
  };
}
