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
});
