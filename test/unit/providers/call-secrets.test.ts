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

  it('lists the request\'s MCP server tokens, ignoring entries without one', () => {
    const request = { model: 'm', max_tokens: 1, messages: [], mcp_servers: [{ type: 'url', url: 'https://a', name: 'a', authorization_token: 'mcp-token-0001' }, { type: 'url', url: 'https://b', name: 'b' }, 'junk'] } as never;
    expect(callSecrets({ key: 'sk-plain', request })).toEqual(['sk-plain', 'mcp-token-0001']);
    expect(callSecrets({ key: 'sk-plain', request: { model: 'm', max_tokens: 1, messages: [] } as never })).toEqual(['sk-plain']);
  });
});
