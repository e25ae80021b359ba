/**
 * A wrapper for a gateway-owned secret (a shared provider key, AWS credentials) read from configuration.
 * Logging, string conversion, JSON serialisation and `util.inspect` all print `[redacted]`; only `reveal()`
 * gives the value, so a secret reaches the wire only where the adapter deliberately puts it.
 */
const REDACTED = '[redacted]';

/** A secret that never prints itself. */
export class SecretValue {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    Object.freeze(this);
  }

  /** The secret itself, for the one place that sends it upstream. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `SecretValue(${REDACTED})`;
  }
}
