import { describe, expect, it } from 'vitest';
import { callSecrets, withoutSecrets } from '#src/providers/call-secrets.ts';

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

describe('callSecrets', () => {
  it('lists the API key of a plain or region-bound key', () => {
    expect(callSecrets({ key: 'sk-plain' })).toEqual(['sk-plain']);
    expect(callSecrets({ key: { api_key: 'sk-regional', region: 'europe' } })).toEqual(['sk-regional']);
    expect(callSecrets({ key: undefined })).toEqual([]);
  });

  it('lists every part of an AWS signing key pair', () => {
    const awsCredentials = { accessKeyId: 'ASIAEXAMPLE000000001', secretAccessKey: 'secret/key+value', sessionToken: 'token==' };
    expect(callSecrets({ key: undefined, awsCredentials })).toEqual(['ASIAEXAMPLE000000001', 'secret/key+value', 'token==']);
  });
});
