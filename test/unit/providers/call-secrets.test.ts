import { describe, expect, it } from 'vitest';
import { callSecrets } from '#src/providers/call-secrets.ts';

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

  it('lists the values of configured headers long enough to be credentials', () => {
    expect(callSecrets({ key: 'sk-plain', providerHeaders: { 'X-Proxy-Token': 'proxy-token-0123456789', 'X-Flag': '1', 'anthropic-beta': 'x' } })).toEqual(['sk-plain', 'proxy-token-0123456789']);
  });
});
