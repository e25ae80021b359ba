/**
 * Builders for routing-plan tests: a small catalog, credentials with every flag off, and a plan input whose
 * random source always answers 0 (the price-weighted spread then keeps catalog order).
 */
import type { MessageRequest } from '#src/api-types.ts';
import type { PlanCredential, PlanEndpoint, PlanInput, PlanModel, PlannedAttempt } from '#src/routing/plan-types.ts';

/** An endpoint with sensible defaults: $1/$2, no ZDR, no data collection, every region, every parameter. */
export function endpoint(model: string, provider: string, overrides: Partial<PlanEndpoint> = {}): PlanEndpoint {
  return {
    model,
    provider,
    providerName: provider.charAt(0).toUpperCase() + provider.slice(1),
    upstreamModel: model.split('/')[1] ?? model,
    pricing: { input: 1, output: 2 },
    fast: null,
    dataPolicy: { zdr: false, dataCollection: 'deny' },
    regions: ['global', 'us', 'europe'],
    supportedParameters: ['tools', 'tool_choice', 'thinking', 'images', 'pdf', 'structured_output', 'stop_sequences', 'temperature', 'top_p', 'top_k'],
    contextLength: 200_000,
    ...overrides,
  };
}

/** A model served by the given endpoints (built with {@link endpoint}, model slug filled in). */
export function model(slug: string, endpoints: Array<[string, Partial<PlanEndpoint>?]>): PlanModel {
  return { slug, endpoints: endpoints.map(([provider, overrides]) => endpoint(slug, provider, overrides)) };
}

/** A credential with every flag off and no filter. */
export function credential(id: string, provider: string, overrides: Partial<PlanCredential> = {}): PlanCredential {
  return {
    id,
    provider,
    disabled: false,
    isFallback: false,
    isByokOnly: false,
    isRequired: false,
    sortOrder: 0,
    allowedModels: null,
    allowedApiKeyHashes: null,
    allowedUserIds: null,
    declaredRegion: null,
    declaredZdr: null,
    ...overrides,
  };
}

/** The default test catalog. */
export const CATALOG: PlanModel[] = [
  model('anthropic/claude', [['anthropic', { pricing: { input: 3, output: 15 } }], ['bedrock', { pricing: { input: 3, output: 15 } }], ['vertex', { pricing: { input: 3.3, output: 16.5 } }]]),
  model('openai/gpt', [['openai', { pricing: { input: 1.25, output: 10 } }], ['azure', { pricing: { input: 1.25, output: 10 } }]]),
  model('meta/llama', [['together', { pricing: { input: 0.2, output: 0.6 } }], ['deepinfra', { pricing: { input: 0.1, output: 0.3 } }]]),
];

/** A minimal valid request for `model` with extra fields. */
export function request(overrides: Partial<MessageRequest> = {}): MessageRequest {
  return { model: 'anthropic/claude', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], ...overrides };
}

/** A plan input over `catalog` where every provider has a shared key. */
export function planInput(overrides: Partial<PlanInput> = {}, catalog: PlanModel[] = CATALOG): PlanInput {
  const bySlug = new Map(catalog.map((entry) => [entry.slug, entry]));
  return {
    request: request(),
    callerKeyHash: 'a'.repeat(64),
    region: 'global',
    models: (slug) => bySlug.get(slug),
    credentials: [],
    sharedProviders: new Set(catalog.flatMap((entry) => entry.endpoints.map((item) => item.provider))),
    random: () => 0,
    ...overrides,
  };
}

/** Attempts as short strings: `model@provider` for shared, `model@provider#credential` for BYOK, `+fast`. */
export function summarize(attempts: readonly PlannedAttempt[]): string[] {
  return attempts.map((attempt) => {
    const key = attempt.credential.kind === 'byok' ? `#${attempt.credential.credentialId}` : '';
    return `${attempt.model}@${attempt.endpoint.provider}${key}${attempt.fast ? '+fast' : ''}`;
  });
}

/** A random source answering the given numbers in turn, then 0. */
export function sequence(...numbers: number[]): () => number {
  let index = 0;
  return () => numbers[index++] ?? 0;
}
