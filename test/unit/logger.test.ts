import { describe, expect, it } from 'vitest';
import { createLogger, redact, withoutSecrets } from '#src/logger.ts';

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

const KEY = 'custKey_9f2c41d0b7e6a5f83c21/+Zq';

describe('withoutSecrets', () => {
  it.each([
    ['whole', `bad key ${KEY} here`, 'bad key [REDACTED] here'],
    ['masked in the middle', `bad key ${KEY.slice(0, 14)}****${KEY.slice(-4)}`, 'bad key [REDACTED]****/+Zq'],
    ['percent-encoded', `GET /v1?key=${encodeURIComponent(KEY)}&x=1`, 'GET /v1?key=[REDACTED]&x=1'],
    ['hex', `dump ${Buffer.from(KEY).toString('hex')} end`, 'dump [REDACTED] end'],
    ['a fragment cut by a bound', `tail ${KEY.slice(0, 13)}`, 'tail [REDACTED]'],
    ['nothing of the key', 'Incorrect API key provided', 'Incorrect API key provided'],
    ['its last four characters only, as its label shows them', `key ending ${KEY.slice(-4)}`, `key ending ${KEY.slice(-4)}`],
  ])('removes the key quoted %s', (_name, text, expected) => {
    expect(withoutSecrets(text, [KEY])).toBe(expected);
  });

  it.each([[''], ['u'], ['us'], ['use'], ['user:']])('removes the key base64-encoded after %j, at any alignment', (before) => {
    for (const encode of [(bytes: Buffer) => bytes.toString('base64'), (bytes: Buffer) => bytes.toString('base64url')]) {
      const encoded = encode(Buffer.from(`${before}${KEY} and more`));
      const result = withoutSecrets(`Basic ${encoded}`, [KEY]);
      expect(result).toContain('[REDACTED]');
      // What is left of the encoding is no more than the ragged characters at either end of the key.
      const left = result.replace('Basic ', '').split('[REDACTED]').map((part) => part.length);
      expect(left[0]).toBeLessThanOrEqual(Math.ceil((before.length * 4) / 3) + 2);
    }
  });

  it('removes a secret shorter than a run only whole', () => {
    expect(withoutSecrets('token abc123 in abc12', ['abc123'])).toBe('token [REDACTED] in abc12');
  });

  it('leaves the text alone without secrets', () => {
    expect(withoutSecrets(`key ${KEY}`, [])).toBe(`key ${KEY}`);
  });
});
