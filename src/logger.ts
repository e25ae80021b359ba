/**
 * A small structured logger: one JSON line per event. Anything that looks like key material is redacted
 * before it is written, as a last line of defence; callers should never pass secrets in the first place.
 * `withoutSecrets` removes known secrets by value from text a service sent back (a vendor's error, a
 * destination's refusal) before it is kept, shown or logged. A database error is written by its codes, never
 * its message (database-error-fields.ts).
 */
import { databaseErrorFields } from '#src/store/database-error-fields.ts';

/** Severity of a log line. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Where log lines go; tests capture them. */
export type LogSink = (line: string) => void;

/** The logger every module receives through its dependencies. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

// Gateway keys (sb-…), OpenAI/Anthropic-style keys (sk-…), Google keys (AIza…), AWS access key ids (long-term
// AKIA, temporary ASIA), bearer tokens.
const SECRET_PATTERNS = [
  /\bsb-[A-Za-z0-9_-]{16,}/g,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{12,}/g,
  /(Bearer\s+)[^\s"']+/gi,
];
const SECRET_FIELD = /^(authorization|api[_-]?key|x-api-key|key|secret|password|token|master[_-]?key|raw[_-]?key)$/i;

/** Replaces every substring that looks like a credential with `[REDACTED]`. */
export function redact(text: string): string {
  let result = text;
  for (const pattern of SECRET_PATTERNS) {
    result = result.replace(pattern, (match, prefix: unknown) => (typeof prefix === 'string' ? `${prefix}[REDACTED]` : '[REDACTED]'));
  }
  return result;
}

// Removal by value: a secret the gateway holds (a BYOK key, a destination's secret) need not look like any pattern above, and a
// service that refuses it may quote it in any form: every run of it (or of one of its encodings) longer than
// the four characters a masked label shows is removed by value.

/** How a removed run reads. */
const REDACTED = '[REDACTED]';

/**
 * The shortest run of a secret that is removed. A masked label shows four characters; twelve leaves no
 * chance that an ordinary word matches while any fragment long enough to narrow a search goes.
 */
const RUN = 12;

/**
 * The base64 text that only the secret's own bytes decide, at each of the three alignments it can have inside
 * longer encoded data (`user:<key>` in a Basic header starts it mid-group); the ragged ends are left out.
 */
function base64Cores(secret: string): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), Buffer.from(secret)]).toString('base64').replace(/=+$/, '');
    const core = encoded.slice(offset === 0 ? 0 : offset + 1, -2);
    cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return cores;
}

/** The texts a secret may be quoted as. */
function quotedForms(secret: string): string[] {
  return [secret, encodeURIComponent(secret), Buffer.from(secret).toString('hex'), ...base64Cores(secret)];
}

/**
 * `text` with every run of at least twelve characters of any secret, or of its percent-encoded, hex or base64
 * form, replaced by `[REDACTED]`; a secret shorter than twelve characters is removed whole.
 */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || text.length === 0) return text;
  return secretScrubber(secrets)(text);
}

/**
 * `withoutSecrets` for many texts and the same secrets: the runs to look for are listed once (a tool result
 * has many strings, each cleaned with the server's secrets).
 */
export function secretScrubber(secrets: readonly string[]): (text: string) => string {
  const runs = new Set<string>();
  const whole: string[] = [];
  for (const secret of secrets) {
    for (const form of quotedForms(secret)) {
      if (form.length < RUN) {
        if (form.length > 0) whole.push(form);
        continue;
      }
      for (let start = 0; start + RUN <= form.length; start += 1) runs.add(form.slice(start, start + RUN));
    }
  }
  return (text) => {
    let result = text;
    for (const form of whole) result = result.replaceAll(form, REDACTED);
    return runs.size === 0 ? result : replaceRuns(result, runs);
  };
}

/** A function that removes secrets from every string in a value, object keys included, building new objects. */
export type ValueScrubber = <T>(value: T) => T;

/** `secretScrubber` over every string of a value (a tool result, a completion); the identity without secrets. */
export function valueScrubber(secrets: readonly string[]): ValueScrubber {
  if (secrets.length === 0) return (value) => value;
  const scrub = secretScrubber(secrets);
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return scrub(value);
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, item]) => [scrub(name), walk(item)]));
    return value;
  };
  return <T>(value: T) => walk(value) as T;
}

// Marks every position a known run covers, then replaces each covered stretch once.
function replaceRuns(text: string, runs: ReadonlySet<string>): string {
  const covered = new Uint8Array(text.length);
  let found = false;
  for (let start = 0; start + RUN <= text.length; start += 1) {
    if (!runs.has(text.slice(start, start + RUN))) continue;
    covered.fill(1, start, start + RUN);
    found = true;
  }
  if (!found) return text;
  let result = '';
  for (let index = 0; index < text.length; index += 1) {
    if (covered[index] === 0) result += text[index];
    else if (index === 0 || covered[index - 1] === 0) result += REDACTED;
  }
  return result;
}

function serialize(fields: Record<string, unknown>): string {
  return JSON.stringify(fields, (name, value: unknown) => {
    if (SECRET_FIELD.test(name) && value !== null && value !== undefined) return '[REDACTED]';
    // A database error's message and stack quote the query's parameters (prompts, secrets): its codes instead.
    if (value instanceof Error) return databaseErrorFields(value) ?? { name: value.name, message: value.message, stack: value.stack };
    return value;
  });
}

/** Creates a logger writing lines at or above `level` to `sink` (stderr by default). */
export function createLogger(options: { level?: LogLevel; sink?: LogSink } = {}): Logger {
  const threshold = LEVELS[options.level ?? 'info'];
  const sink = options.sink ?? ((line: string) => process.stderr.write(`${line}\n`));
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < threshold) return;
    sink(redact(serialize({ time: new Date().toISOString(), level, message, ...fields })));
  };
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}
