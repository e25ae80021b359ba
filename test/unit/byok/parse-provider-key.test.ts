import { describe, expect, it } from 'vitest';
import { BLANK_KEY, KEY_MUST_BE_STRING, parseProviderKey } from '#src/byok/parse-provider-key.ts';
import { RuleViolation } from '#src/byok/rules.ts';
import type { ProviderKeyMaterial } from '#src/byok/key-vault.ts';

/** What parsing gives: the material, or the reason of the rule violation. */
function outcome(provider: string, key: string): ProviderKeyMaterial | string {
  try {
    return parseProviderKey(provider, key);
  } catch (error) {
    if (error instanceof RuleViolation) return error.reason;
    throw error;
  }
}

const SECRET = 'sk-proj-Zq81secretmaterial0000';
const FORM = '{"api_key": "…", "region": "us"|"europe"}';
const regionBound = (value: unknown) => JSON.stringify(value);

describe('parseProviderKey', () => {
  const cases: [string, string, string, ProviderKeyMaterial | string][] = [
    // plain keys, every provider
    ['a plain openai key', 'openai', SECRET, { apiKey: SECRET, region: null }],
    ['a plain fireworks key', 'fireworks', 'fw_3xYz0000000000000000', { apiKey: 'fw_3xYz0000000000000000', region: null }],
    ['a plain anthropic key', 'anthropic', 'sk-ant-api03-abc', { apiKey: 'sk-ant-api03-abc', region: null }],
    ['a key containing braces later on', 'openai', 'sk-{not-json}', { apiKey: 'sk-{not-json}', region: null }],
    // region-bound keys of openai and fireworks
    ['openai, europe', 'openai', regionBound({ api_key: SECRET, region: 'europe' }), { apiKey: SECRET, region: 'europe' }],
    ['fireworks, us', 'fireworks', regionBound({ api_key: 'fw_key', region: 'us' }), { apiKey: 'fw_key', region: 'us' }],
    ['properties in either order, white space around', 'openai', `  { "region" : "us", "api_key" : "${SECRET}" }\n`, { apiKey: SECRET, region: 'us' }],
    // malformed region-bound keys of openai and fireworks
    ['invalid JSON', 'openai', `{"api_key": "${SECRET}", region: us}`, `key starts with "{" but is not a JSON object: a region-bound openai key is the JSON text ${FORM}`],
    ['truncated JSON', 'fireworks', `{"api_key": "${SECRET}"`, `key starts with "{" but is not a JSON object: a region-bound fireworks key is the JSON text ${FORM}`],
    ['api_key missing', 'openai', regionBound({ region: 'us' }), `key has no api_key (a non-empty string): a region-bound openai key is the JSON text ${FORM}`],
    ['api_key empty', 'openai', regionBound({ api_key: '', region: 'us' }), `key has no api_key (a non-empty string): a region-bound openai key is the JSON text ${FORM}`],
    ['api_key only white space', 'openai', regionBound({ api_key: ' \t ', region: 'us' }), `key has no api_key (a non-empty string): a region-bound openai key is the JSON text ${FORM}`],
    ['only spaces', 'anthropic', '   ', BLANK_KEY],
    ['only a tab and a space, openai', 'openai', '\t ', BLANK_KEY],
    ['only a no-break space', 'mistral', '\u00a0', BLANK_KEY],
    ['api_key not a string', 'openai', regionBound({ api_key: 42, region: 'us' }), `key has no api_key (a non-empty string): a region-bound openai key is the JSON text ${FORM}`],
    ['region missing', 'openai', regionBound({ api_key: SECRET }), `key has no valid region ("us" or "europe"): a region-bound openai key is the JSON text ${FORM}`],
    ['region global', 'openai', regionBound({ api_key: SECRET, region: 'global' }), `key has no valid region ("us" or "europe"): a region-bound openai key is the JSON text ${FORM}`],
    ['region in capitals', 'fireworks', regionBound({ api_key: SECRET, region: 'EUROPE' }), `key has no valid region ("us" or "europe"): a region-bound fireworks key is the JSON text ${FORM}`],
    ['another property', 'openai', regionBound({ api_key: SECRET, region: 'us', project: 'p' }), `key has properties other than api_key and region: a region-bound openai key is the JSON text ${FORM}`],
    // other providers: JSON is a key like any other, except the region-bound shape
    ['anthropic, region-bound shape', 'anthropic', regionBound({ api_key: SECRET, region: 'us' }), `a region-bound key ${FORM} is only accepted for openai and fireworks (for anthropic, send the key itself)`],
    ['azure, region-bound shape with a bad region', 'azure', regionBound({ api_key: SECRET, region: 'asia' }), `a region-bound key ${FORM} is only accepted for openai and fireworks (for azure, send the key itself)`],
    ['azure, a JSON document key', 'azure', regionBound({ token: SECRET, tenant: 'acme' }), { apiKey: regionBound({ token: SECRET, tenant: 'acme' }), region: null }],
    ['google, a service-account document', 'google', regionBound({ type: 'service_account', private_key: SECRET }), expect.stringMatching(/^key is a Google Cloud service-account JSON document: .*Vertex AI credentials are not supported$/)],
    ['bedrock, an AWS access key id', 'bedrock', 'AKIAZ7QK3MX9TLV2RB4N', expect.stringMatching(/^key is an AWS access key id: /)],
    ['bedrock, a Bedrock API key', 'bedrock', `ABSK${SECRET}`, { apiKey: `ABSK${SECRET}`, region: null }],
    ['anthropic, api_key alone', 'anthropic', regionBound({ api_key: SECRET }), { apiKey: regionBound({ api_key: SECRET }), region: null }],
    ['anthropic, invalid JSON', 'anthropic', '{oops', { apiKey: '{oops', region: null }],
  ];

  it.each(cases)('%s', (_name, provider, key, expected) => {
    expect(outcome(provider, key)).toEqual(expected);
  });

  it.each(cases.filter(([, , , expected]) => typeof expected === 'string'))('never repeats the key in a reason: %s', (_name, provider, key) => {
    expect(outcome(provider, key)).not.toContain(SECRET);
    expect(outcome(provider, key)).not.toContain('secretmaterial');
  });

  it('names the string form for a JSON object sent in place of the key', () => {
    expect(KEY_MUST_BE_STRING).toBe(`key must be a string; for openai and fireworks a region-bound key is the JSON text ${FORM}`);
  });
});
