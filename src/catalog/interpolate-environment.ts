/**
 * `${VAR}` interpolation in the configuration file. `${VAR:-fallback}` uses the fallback when VAR is unset or
 * empty, and `$${` writes a literal `${`. A variable that is unset with no fallback is a problem: an unset key
 * caught at start-up beats a 401 at the first request.
 *
 * References are swapped for plain placeholder words before YAML parsing and substituted into the parsed
 * strings after it. That way `{ api_key: ${KEY} }` is valid (a bare `{` may not appear in a flow mapping), and a
 * value's characters (`#`, `: `, quotes) can never change the file's structure. Values become strings; number
 * and boolean fields take a string holding one (config-readers.ts), so `timeout_ms: ${T:-15000}` works.
 */
import { randomBytes } from 'node:crypto';
import { childPath, type ConfigProblem } from './config-readers.ts';

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}\n]*))?\}|\$\{[^}\n]*\}?/g;

type Reference = { kind: 'literal' } | { kind: 'variable'; name: string; fallback: string | undefined } | { kind: 'malformed'; text: string };

/** The file's text with references replaced by placeholders, and what each placeholder stands for. */
export interface ProtectedText {
  text: string;
  references: ReadonlyMap<string, Reference>;
  placeholder: RegExp;
}

/** Replaces every `${...}` (and `$${`) in the raw file with a YAML-safe placeholder word. */
export function protectReferences(source: string): ProtectedText {
  const nonce = randomBytes(6).toString('hex');
  const references = new Map<string, Reference>();
  const text = source.replace(REFERENCE, (match: string, name: string | undefined, fallback: string | undefined) => {
    const placeholder = `SBREF${nonce}N${references.size}X`;
    if (match === '$${') references.set(placeholder, { kind: 'literal' });
    else if (name === undefined) references.set(placeholder, { kind: 'malformed', text: match });
    else references.set(placeholder, { kind: 'variable', name, fallback });
    return placeholder;
  });
  return { text, references, placeholder: new RegExp(`SBREF${nonce}N\\d+X`, 'g') };
}

function substitute(text: string, source: ProtectedText, environment: NodeJS.ProcessEnv, path: string, problems: ConfigProblem[]): string {
  return text.replace(source.placeholder, (placeholder) => {
    const reference = source.references.get(placeholder);
    if (!reference) return placeholder;
    if (reference.kind === 'literal') return '${';
    if (reference.kind === 'malformed') {
      problems.push({ path, message: `has a malformed reference ${JSON.stringify(reference.text)} (write \${NAME} or \${NAME:-default})` });
      return reference.text;
    }
    const value = environment[reference.name];
    if (reference.fallback !== undefined) return value === undefined || value === '' ? reference.fallback : value;
    if (value === undefined) {
      problems.push({ path, message: `refers to the environment variable ${reference.name}, which is not set (write \${${reference.name}:-} to allow it to be empty)` });
      return '';
    }
    return value;
  });
}

/** A copy of a parsed YAML value with the placeholders in strings (and keys) replaced by their values. */
export function interpolateEnvironment(value: unknown, source: ProtectedText, environment: NodeJS.ProcessEnv, path: string, problems: ConfigProblem[]): unknown {
  if (typeof value === 'string') return substitute(value, source, environment, path, problems);
  if (Array.isArray(value)) return value.map((item, index) => interpolateEnvironment(item, source, environment, `${path}[${index}]`, problems));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([rawKey, item]) => {
        const key = substitute(rawKey, source, environment, childPath(path, rawKey), problems);
        return [key, interpolateEnvironment(item, source, environment, childPath(path, key), problems)];
      }),
    );
  }
  return value;
}

/** Values shorter than this are left in messages: too short to be a secret, and they would mangle words. */
const SHORTEST_REDACTED = 8;

/**
 * The values of the environment variables the file's text refers to, by variable name: what a problem's
 * message must not quote. The file's `${VAR}` is where its secrets come from, and a value in the wrong place
 * (a key variable written as `base_url`, two variables swapped) would otherwise be quoted in the start-up error.
 */
export function referencedValues(text: string, environment: NodeJS.ProcessEnv): Map<string, string> {
  const values = new Map<string, string>();
  for (const match of text.matchAll(REFERENCE)) {
    const name = match[1];
    const value = name === undefined ? undefined : environment[name];
    if (name !== undefined && value !== undefined && value.length >= SHORTEST_REDACTED) values.set(name, value);
  }
  return values;
}

/** `message` with every run of `value`'s characters from its start (8 or more, the whole value or a cut quote of it) replaced. */
function redactValue(message: string, value: string, replacement: string): string {
  const head = value.slice(0, SHORTEST_REDACTED);
  let redacted = '';
  let from = 0;
  for (let at = message.indexOf(head); at >= 0; at = message.indexOf(head, from)) {
    let length = head.length;
    while (length < value.length && message[at + length] === value[length]) length++;
    redacted += message.slice(from, at) + replacement;
    from = at + length;
  }
  return redacted + message.slice(from);
}

/** The problems with each referenced variable's value replaced by `the value of ${NAME}`. */
export function redactReferencedValues(problems: readonly ConfigProblem[], values: ReadonlyMap<string, string>): ConfigProblem[] {
  return problems.map((problem) => {
    let message = problem.message;
    for (const [name, value] of values) {
      const replacement = `the value of \${${name}}`;
      // A quoted value reads as the variable unquoted, whole or cut (`"…..."`).
      message = redactValue(message, value, replacement).replaceAll(`"${replacement}..."`, replacement).replaceAll(`"${replacement}"`, replacement);
    }
    return { path: problem.path, message };
  });
}
