import { describe, expect, it } from 'vitest';
import { createLogger, redact } from '#src/logger.ts';

describe('redact', () => {
  it.each([
    ['a gateway key', 'key sb-0123456789abcdefghij used', 'key [REDACTED] used'],
    ['an OpenAI-style key', 'Incorrect API key provided: sk-proj-abcdefgh1234', 'Incorrect API key provided: [REDACTED]'],
    ['a Google key', 'url ?key=AIzaSyA1234567890abcdefghijk', 'url ?key=[REDACTED]'],
    ['a long-term AWS access key id', 'Credential=AKIAIOSFODNN7EXAMPLE/20261128/us-east-1', 'Credential=[REDACTED]/20261128/us-east-1'],
    ['a temporary AWS access key id', 'The security token of ASIAIOSFODNN7EXAMPLE is invalid', 'The security token of [REDACTED] is invalid'],
    ['a bearer token', 'authorization: Bearer opaque.token', 'authorization: Bearer [REDACTED]'],
  ])('replaces %s', (_name, text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('redacts a log line whose fields carry a key-shaped value', () => {
    const lines: string[] = [];
    createLogger({ sink: (line) => lines.push(line) }).warn('upstream said', { reason: 'ASIAIOSFODNN7EXAMPLE expired', api_key: 'anything' });
    expect(lines[0]).not.toContain('ASIAIOSFODNN7EXAMPLE');
    expect(lines[0]).not.toContain('anything');
  });
});
