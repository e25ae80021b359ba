import { describe, expect, it } from 'vitest';
import { SecretValue } from '#src/catalog/secret-value.ts';
import { CredentialUnavailableError } from '#src/errors.ts';
import { attemptCall, revealKey } from '#src/messages/attempt-call.ts';
import type { ProviderKey } from '#src/providers/provider-adapter.ts';
import { attempt, provider } from '#test/unit/routing/attempt-fixtures.ts';

const context = { forwardHeaders: { 'anthropic-version': '2023-06-01' }, signal: new AbortController().signal };
const request = { model: 'x/m', max_tokens: 8, messages: [{ role: 'user' as const, content: 'Hi' }] };

const vault = {
  async revealKey(accountId: string, credentialId: string): Promise<ProviderKey> {
    if (credentialId === 'gone') throw new CredentialUnavailableError(credentialId);
    return `byok:${accountId}:${credentialId}`;
  },
};

describe('revealKey', () => {
  it('decrypts a BYOK key through the vault, for the calling account', async () => {
    expect(await revealKey(attempt('x/m', 'p', { credential: { kind: 'byok', credentialId: 'c1' } }), 'acct-1', vault)).toBe('byok:acct-1:c1');
  });

  it("reveals the gateway's shared key, or none when the provider has none", async () => {
    expect(await revealKey(attempt('x/m', provider('p', { sharedKey: new SecretValue('sk-shared') })), 'acct-1', vault)).toBe('sk-shared');
    expect(await revealKey(attempt('x/m', 'p'), 'acct-1', vault)).toBeUndefined();
  });

  it('lets the vault say the credential is gone', async () => {
    await expect(revealKey(attempt('x/m', 'p', { credential: { kind: 'byok', credentialId: 'gone' } }), 'acct-1', vault)).rejects.toBeInstanceOf(CredentialUnavailableError);
  });
});

describe('attemptCall', () => {
  it("carries the attempt's endpoint and what it reads, the provider's family, quirks and headers, and the request context", () => {
    const on = provider('deepseek', { family: 'openai-compatible', quirks: { supportsStructuredOutputs: false }, headers: { 'x-team': 'a' } });
    const call = attemptCall(request, attempt('x/m', on, { baseUrl: 'http://127.0.0.1:9/v1', upstreamModel: 'm-1', imageInput: false }), context, 'sk');
    expect(call).toEqual({
      request,
      provider: 'deepseek',
      family: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:9/v1',
      upstreamModel: 'm-1',
      key: 'sk',
      forwardHeaders: { 'anthropic-version': '2023-06-01' },
      quirks: { supportsStructuredOutputs: false },
      signal: context.signal,
      providerHeaders: { 'x-team': 'a' },
      imageInput: false,
      pdfInput: true,
    });
  });

  it("adds the caller's workspace and user profile headers only to an Anthropic-format attempt with a BYOK key", () => {
    const organizationHeaders = { 'anthropic-workspace-id': 'wrkspc_1', 'anthropic-user-profile-id': 'uprof_1' };
    const withOrganization = { ...context, organizationHeaders };
    const byok = { credential: { kind: 'byok' as const, credentialId: 'c1' } };
    const forwarded = (on: Parameters<typeof attempt>[1], options = {}) => attemptCall(request, attempt('x/m', on, options), withOrganization, 'sk').forwardHeaders;
    expect(forwarded('anthropic', byok)).toEqual({ 'anthropic-version': '2023-06-01', ...organizationHeaders });
    expect(forwarded('anthropic')).toEqual({ 'anthropic-version': '2023-06-01' });
    expect(forwarded(provider('openai', { family: 'openai-chat' }), byok)).toEqual({ 'anthropic-version': '2023-06-01' });
    expect(attemptCall(request, attempt('x/m', 'anthropic', byok), context, 'sk').forwardHeaders).toBe(context.forwardHeaders);
  });

  it('asks for the fast variant only when the attempt runs fast', () => {
    expect(attemptCall(request, attempt('x/m', 'p', { fast: true }), context, 'sk').fast).toBe(true);
    expect(attemptCall(request, attempt('x/m', 'p'), context, 'sk')).not.toHaveProperty('fast');
  });

  it("sends a region-bound key to the provider's host for the key's region", () => {
    const openai = provider('openai', { regionalKeys: true, regionalBaseUrls: { europe: 'http://127.0.0.1:9/eu/v1' } });
    const on = attempt('openai/gpt-5', openai, { baseUrl: 'http://127.0.0.1:9/v1' });
    expect(attemptCall(request, on, context, { api_key: 'sk', region: 'europe' }).baseUrl).toBe('http://127.0.0.1:9/eu/v1');
    expect(attemptCall(request, on, context, { api_key: 'sk', region: 'us' }).baseUrl).toBe('http://127.0.0.1:9/v1');
    expect(attemptCall(request, on, context, 'sk').baseUrl).toBe('http://127.0.0.1:9/v1');
  });

  it('signs with the configured AWS key pair only when the attempt has no key', () => {
    const aws = { region: 'eu-west-1', accessKeyId: new SecretValue('AKIA0001'), secretAccessKey: new SecretValue('secret'), sessionToken: null };
    const on = attempt('x/m', provider('bedrock', { family: 'bedrock', aws }));
    expect(attemptCall(request, on, context, undefined).awsCredentials).toEqual({ accessKeyId: 'AKIA0001', secretAccessKey: 'secret', region: 'eu-west-1' });
    expect(attemptCall(request, on, context, 'bedrock-api-key')).not.toHaveProperty('awsCredentials');
    const incomplete = attempt('x/m', provider('bedrock', { family: 'bedrock', aws: { ...aws, secretAccessKey: null } }));
    expect(attemptCall(request, incomplete, context, undefined)).not.toHaveProperty('awsCredentials');
  });
});
