/**
 * A small structured logger: one JSON line per event. Anything that looks like key material is redacted
 * before it is written, as a last line of defence; callers should never pass secrets in the first place.
 */

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

function serialize(fields: Record<string, unknown>): string {
  return JSON.stringify(fields, (name, value: unknown) => {
    if (SECRET_FIELD.test(name) && value !== null && value !== undefined) return '[REDACTED]';
    if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
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
