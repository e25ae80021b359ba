import { describe, expect, it } from 'vitest';
import { isCredentialToken, redactCredentials } from '#src/catalog/credential-shape.ts';

describe('isCredentialToken', () => {
  it.each([
    'sk-ant-api03-Kq8vR2mZx7LtW4nB9cYp3DfH6jS1gA5eU0oIiMbNrTsQ',
    'sk-proj-Zt0pS3cr3tValueOfTheOpenAiKey',
    'sb-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    'AKIAZ7QK3MX9TLV2RB4N',
    'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY',
    'gsk_abc123DEF456ghi789JKL012mno345',
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'q7Rt2VbX9mKz4LpW8nCy3HdF6jGs1A5e',
    '4f3c2b8e1a106f7d4a349a518f3c2b8e1a103f0c',
  ])('finds %s a credential', (token) => {
    expect(isCredentialToken(token)).toBe(true);
  });

  it.each([
    'anthropic/claude-sonnet-4.5',
    'claude-sonnet-4-5-20250929',
    'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    'https://generativelanguage.googleapis.com/v1beta',
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'models.anthropic/claude-sonnet-4.5.endpoints',
    'accounts/fireworks/models/deepseek-v3p1',
    'usage.cacheWrite1hTokens',
  ])('leaves the identifier %s alone', (token) => {
    expect(isCredentialToken(token)).toBe(false);
  });
});

describe('redactCredentials', () => {
  it('replaces a quoted value, whole or cut, with its quotes, and leaves the rest of the message', () => {
    expect(redactCredentials('must be one of bearer, none, got "sk-ant-api03-Kq8vR2mZx7LtW4nB9cYp3DfH6jS1gA5eU0oIiMbNrTsQ..."')).toBe(
      'must be one of bearer, none, got a value that looks like a credential (not shown)',
    );
    expect(redactCredentials('got "https://api.example.com/v1?key=q7Rt2VbX9mKz4LpW8nCy3HdF6jGs1A5e"')).toBe('got "https://api.example.com/v1?a value that looks like a credential (not shown)"');
  });

  it('keeps a key hash readable in a path when asked to', () => {
    const path = `plugins.by_api_key_hash.${'9b74c9897bac770ffc029102a200c5de3c2f8c5a6d1e2e7f0a9b8c7d6e5f4a3b'}`;
    expect(redactCredentials(path, { keyHashes: true })).toBe(path);
  });
});
