import { describe, expect, it } from 'vitest';
import { GatewayError } from '#src/errors.ts';
import { planAttempts } from '#src/routing/routing-plan.ts';
import type { PlanCredential, PlanInput } from '#src/routing/plan-types.ts';
import { credential, model, planInput, request, summarize } from '#test/unit/routing/plan-fixtures.ts';

// Two models, both served by `openai` and `azure`; `meta/llama` only by `together`.
const catalog = [
  model('openai/gpt', [['openai', { pricing: { input: 1, output: 1 } }], ['azure', { pricing: { input: 2, output: 2 } }]]),
  model('openai/mini', [['openai', { pricing: { input: 0.1, output: 0.1 } }], ['azure', { pricing: { input: 0.2, output: 0.2 } }]]),
  model('meta/llama', [['together', {}]]),
];
const CALLER = 'c'.repeat(64);

function run(credentials: PlanCredential[], overrides: Partial<PlanInput> = {}): string[] {
  const input = planInput({ credentials, callerKeyHash: CALLER, ...overrides }, catalog);
  return summarize(planAttempts({ ...input, request: overrides.request ?? request({ model: 'openai/gpt' }) }).attempts);
}

function errorOf(credentials: PlanCredential[], overrides: Partial<PlanInput> = {}): string {
  try {
    run(credentials, overrides);
  } catch (error) {
    if (error instanceof GatewayError) return `${error.status} ${error.publicMessage}`;
    throw error;
  }
  return 'no error';
}

describe('BYOK key order and filters', () => {
  it.each<[string, PlanCredential[], string[]]>([
    ['no credentials: shared endpoints only', [], ['openai/gpt@openai', 'openai/gpt@azure']],
    ['a credential goes before its provider\'s shared endpoint, and leads the spread', [credential('k1', 'azure')], ['openai/gpt@azure#k1', 'openai/gpt@azure', 'openai/gpt@openai']],
    ['several credentials in sort_order', [credential('k2', 'openai', { sortOrder: 2 }), credential('k1', 'openai', { sortOrder: 1 })], ['openai/gpt@openai#k1', 'openai/gpt@openai#k2', 'openai/gpt@openai', 'openai/gpt@azure']],
    ['equal sort_order falls back to id order', [credential('kb', 'openai'), credential('ka', 'openai')], ['openai/gpt@openai#ka', 'openai/gpt@openai#kb', 'openai/gpt@openai', 'openai/gpt@azure']],
    ['is_fallback goes after the shared endpoint', [credential('k1', 'openai', { isFallback: true })], ['openai/gpt@openai', 'openai/gpt@openai#k1', 'openai/gpt@azure']],
    ['primary, shared, then fallback', [credential('f', 'openai', { isFallback: true, sortOrder: 0 }), credential('p', 'openai', { sortOrder: 5 })], ['openai/gpt@openai#p', 'openai/gpt@openai', 'openai/gpt@openai#f', 'openai/gpt@azure']],
    ['disabled credentials are ignored', [credential('k1', 'openai', { disabled: true })], ['openai/gpt@openai', 'openai/gpt@azure']],
    ['allowed_models matching the model', [credential('k1', 'openai', { allowedModels: ['openai/gpt'] })], ['openai/gpt@openai#k1', 'openai/gpt@openai', 'openai/gpt@azure']],
    ['allowed_models with a vendor pattern', [credential('k1', 'openai', { allowedModels: ['openai/*'] })], ['openai/gpt@openai#k1', 'openai/gpt@openai', 'openai/gpt@azure']],
    ['allowed_models not matching', [credential('k1', 'openai', { allowedModels: ['openai/mini'] })], ['openai/gpt@openai', 'openai/gpt@azure']],
    ['allowed_api_key_hashes with the caller', [credential('k1', 'openai', { allowedApiKeyHashes: ['0'.repeat(64), CALLER] })], ['openai/gpt@openai#k1', 'openai/gpt@openai', 'openai/gpt@azure']],
    ['allowed_api_key_hashes without the caller', [credential('k1', 'openai', { allowedApiKeyHashes: ['0'.repeat(64)] })], ['openai/gpt@openai', 'openai/gpt@azure']],
    ['allowed_user_ids without a user', [credential('k1', 'openai', { allowedUserIds: ['alice'] })], ['openai/gpt@openai', 'openai/gpt@azure']],
    // Lists stored empty before the API refused them: usable for nothing, never read as "no restriction".
    ['allowed_models stored empty', [credential('k1', 'openai', { allowedModels: [] })], ['openai/gpt@openai', 'openai/gpt@azure']],
    ['allowed_models stored empty, with is_byok_only: the shared endpoint stays', [credential('k1', 'openai', { allowedModels: [], isByokOnly: true })], ['openai/gpt@openai', 'openai/gpt@azure']],
    ['allowed_user_ids stored empty', [credential('k1', 'openai', { allowedUserIds: [] })], ['openai/gpt@openai', 'openai/gpt@azure']],
    ['allowed_api_key_hashes stored empty', [credential('k1', 'openai', { allowedApiKeyHashes: [] })], ['openai/gpt@openai', 'openai/gpt@azure']],
    ['model and key-hash filters matching but not the user filter', [credential('k1', 'openai', { allowedModels: ['openai/gpt'], allowedApiKeyHashes: [CALLER], allowedUserIds: ['bob'] })], ['openai/gpt@openai', 'openai/gpt@azure']],
  ])('%s', (_name, credentials, expected) => {
    expect(run(credentials)).toEqual(expected);
  });

  it.each<[string, string | undefined, boolean]>([
    ['a listed user', 'alice', true],
    ['an unlisted user', 'mallory', false],
    ['no user', undefined, false],
  ])('allowed_user_ids with %s', (_name, user, applies) => {
    const credentials = [credential('k1', 'openai', { allowedUserIds: ['alice'] })];
    const attempts = run(credentials, { request: request({ model: 'openai/gpt', ...(user === undefined ? {} : { user }) }) });
    expect(attempts.includes('openai/gpt@openai#k1')).toBe(applies);
  });

  it('credentials of other providers do not change a provider\'s keys', () => {
    expect(run([credential('k1', 'anthropic', { isRequired: true })])).toEqual(['openai/gpt@openai', 'openai/gpt@azure']);
  });
});

describe('is_byok_only and is_required', () => {
  const fallbacks = (primary: string) => request({ model: primary, fallbacks: [{ model: primary === 'openai/gpt' ? 'openai/mini' : 'openai/gpt' }] });

  it.each<[string, PlanCredential[], string[]]>([
    ['is_byok_only without allowed_models removes shared for every model', [credential('k1', 'openai', { isByokOnly: true })], ['openai/gpt@openai#k1', 'openai/gpt@azure', 'openai/mini@openai#k1', 'openai/mini@azure']],
    ['is_byok_only removes shared only for the models it covers', [credential('k1', 'openai', { isByokOnly: true, allowedModels: ['openai/gpt'] })], ['openai/gpt@openai#k1', 'openai/gpt@azure', 'openai/mini@openai', 'openai/mini@azure']],
    ['is_required removes shared for every model, even outside allowed_models', [credential('k1', 'openai', { isRequired: true, allowedModels: ['openai/gpt'] })], ['openai/gpt@openai#k1', 'openai/gpt@azure', 'openai/mini@azure']],
    ['is_required keeps other keys of the provider, shared stays gone', [credential('k1', 'openai', { isRequired: true }), credential('k2', 'openai', { isFallback: true, sortOrder: 1 })], ['openai/gpt@openai#k1', 'openai/gpt@openai#k2', 'openai/gpt@azure', 'openai/mini@openai#k1', 'openai/mini@openai#k2', 'openai/mini@azure']],
    ['is_required applies even when the key-hash filter excludes the caller', [credential('k1', 'openai', { isRequired: true, allowedApiKeyHashes: ['0'.repeat(64)] })], ['openai/gpt@azure', 'openai/mini@azure']],
    ['is_byok_only applies even when the user filter excludes the caller', [credential('k1', 'openai', { isByokOnly: true, allowedUserIds: ['alice'] })], ['openai/gpt@azure', 'openai/mini@azure']],
    ['a disabled is_required credential has no effect', [credential('k1', 'openai', { isRequired: true, disabled: true })], ['openai/gpt@openai', 'openai/gpt@azure', 'openai/mini@openai', 'openai/mini@azure']],
    ['a disabled is_byok_only credential has no effect', [credential('k1', 'openai', { isByokOnly: true, disabled: true })], ['openai/gpt@openai', 'openai/gpt@azure', 'openai/mini@openai', 'openai/mini@azure']],
  ])('%s', (_name, credentials, expected) => {
    expect(run(credentials, { request: fallbacks('openai/gpt') })).toEqual(expected);
  });

  it('a provider without a shared key runs only on BYOK keys', () => {
    const sharedProviders = new Set(['azure']);
    expect(run([], { sharedProviders })).toEqual(['openai/gpt@azure']);
    expect(run([credential('k1', 'openai')], { sharedProviders })).toEqual(['openai/gpt@openai#k1', 'openai/gpt@azure']);
  });

  it.each<[string, PlanCredential[], Set<string>, string]>([
    ['is_required', [credential('k1', 'together', { isRequired: true, allowedModels: ['other/model'] })], new Set(['together']), 'meta/llama: is_required removes shared endpoints of together and no key applies'],
    ['is_byok_only', [credential('k1', 'together', { isByokOnly: true, allowedApiKeyHashes: ['0'.repeat(64)] })], new Set(['together']), 'meta/llama: is_byok_only removes shared endpoints of together for meta/llama and no key applies'],
    ['no shared key', [], new Set<string>(), 'meta/llama: the gateway has no key for together and no BYOK key applies'],
  ])('%s leaving nothing answers 404 naming the rule', (_name, credentials, sharedProviders, reason) => {
    expect(errorOf(credentials, { sharedProviders, request: request({ model: 'meta/llama' }) })).toBe(`404 No endpoint can serve this request: ${reason}`);
  });
});

describe('BYOK combined with provider preferences', () => {
  const key = [credential('k1', 'azure')];
  it.each<[string, Parameters<typeof request>[0], string[]]>([
    ['only excluding the credential\'s provider drops its keys too', { provider: { only: ['openai'] } }, ['openai/gpt@openai']],
    ['ignore drops a provider\'s keys with it', { provider: { ignore: ['azure'] } }, ['openai/gpt@openai']],
    ['an explicit sort wins over the BYOK-first default', { provider: { sort: 'price' } }, ['openai/gpt@openai', 'openai/gpt@azure#k1', 'openai/gpt@azure']],
    ['order wins over the BYOK-first default', { provider: { order: ['openai'] } }, ['openai/gpt@openai', 'openai/gpt@azure#k1', 'openai/gpt@azure']],
    ['allow_fallbacks false keeps the first provider with all its keys', { provider: { allow_fallbacks: false } }, ['openai/gpt@azure#k1', 'openai/gpt@azure']],
    ['max_price applies to BYOK endpoints as well', { provider: { max_price: { prompt: 1.5 } } }, ['openai/gpt@openai']],
  ])('%s', (_name, extra, expected) => {
    expect(run(key, { request: request({ model: 'openai/gpt', ...extra }) })).toEqual(expected);
  });
});

describe('declared_zdr with zdr and data_collection', () => {
  const zdrCatalog = (zdr: boolean, dataCollection: 'allow' | 'deny') => [model('x/m', [['p', { dataPolicy: { zdr, dataCollection } }]])];
  const keysFor = (declaredZdr: boolean | null, zdr: boolean, dataCollection: 'allow' | 'deny', preference: 'zdr' | 'deny') => {
    const input = planInput(
      {
        credentials: [credential('k1', 'p', { declaredZdr })],
        request: request({ model: 'x/m', provider: preference === 'zdr' ? { zdr: true } : { data_collection: 'deny' } }),
      },
      zdrCatalog(zdr, dataCollection),
    );
    try {
      return summarize(planAttempts(input).attempts);
    } catch (error) {
      if (error instanceof GatewayError && error.status === 404) return [];
      throw error;
    }
  };

  it.each<[boolean | null, boolean, string[]]>([
    [true, false, ['x/m@p#k1']],
    [true, true, ['x/m@p#k1', 'x/m@p']],
    [false, true, ['x/m@p']],
    [false, false, []],
    [null, true, ['x/m@p#k1', 'x/m@p']],
    [null, false, []],
  ])('zdr=true: declared_zdr %s on an endpoint with zdr %s', (declaredZdr, endpointZdr, expected) => {
    expect(keysFor(declaredZdr, endpointZdr, 'deny', 'zdr')).toEqual(expected);
  });

  it.each<[boolean | null, 'allow' | 'deny', string[]]>([
    [true, 'allow', ['x/m@p#k1']],
    [false, 'allow', []],
    [null, 'allow', []],
    [null, 'deny', ['x/m@p#k1', 'x/m@p']],
    [false, 'deny', ['x/m@p#k1', 'x/m@p']],
  ])('data_collection=deny: declared_zdr %s on an endpoint that may %s collection', (declaredZdr, dataCollection, expected) => {
    expect(keysFor(declaredZdr, false, dataCollection, 'deny')).toEqual(expected);
  });
});
