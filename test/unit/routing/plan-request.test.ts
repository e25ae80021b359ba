import { describe, expect, it } from 'vitest';
import { loadCatalog } from '#src/catalog/load-catalog.ts';
import { createLogger } from '#src/logger.ts';
import type { AttemptOutcome } from '#src/routing/attempt.ts';
import { createCatalogPlanView } from '#src/routing/catalog-plan-view.ts';
import { EndpointStatsTracker } from '#src/routing/endpoint-stats.ts';
import { createRequestPlanner, type PlanContext, type RequestPlan } from '#src/routing/plan-request.ts';
import type { PlanCredential } from '#src/routing/plan-types.ts';
import { MemoryPinStore } from '#src/routing/sticky/memory-pin-store.ts';
import { StickySessions } from '#src/routing/sticky/sticky-sessions.ts';
import { writeConfig } from '#test/unit/catalog/catalog-test-files.ts';
import { credential, request } from '#test/unit/routing/plan-fixtures.ts';

const catalog = loadCatalog({
  configPath: writeConfig(`
providers:
  ollama: { enabled: false }
  alpha: { family: anthropic, display_name: Alpha Cloud, base_url: http://127.0.0.1:9101, api_key: sk-alpha, regional_base_urls: { europe: http://127.0.0.1:9102 } }
  beta: { family: anthropic, display_name: Beta Cloud, base_url: http://127.0.0.1:9201, api_key: sk-beta }
models:
  test/primary:
    context_length: 8192
    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }
    endpoints:
      - { provider: alpha, model: up-alpha, pricing: { input: 1, output: 2 } }
      - { provider: beta, model: up-beta, pricing: { input: 1, output: 2 } }
`),
  env: {},
});

function planner(credentials: PlanCredential[] = []) {
  const store = new MemoryPinStore();
  const stats = new EndpointStatsTracker();
  const sessions = new StickySessions({ store, ttlMs: 60_000, logger: createLogger({ level: 'error' }) });
  const instance = createRequestPlanner({ view: createCatalogPlanView(catalog), credentials: { forAccount: async () => credentials }, sessions, stats, random: () => 0 });
  return { instance, store, stats };
}

const CONTEXT: PlanContext = { caller: { accountId: 'acct-1', workspaceId: 'ws-1', keyHash: 'a'.repeat(64) }, region: 'global', session: { id: 's1', source: 'session_id' } };
const ALPHA_FIRST = request({ model: 'test/primary', provider: { order: ['alpha', 'beta'] } });

function outcome(plan: RequestPlan, index: number, status: AttemptOutcome['status']): AttemptOutcome {
  return { attempt: plan.attempts[index] as RequestPlan['attempts'][number], index, status, durationMs: 120 };
}

describe('the request planner', () => {
  it('plans attempts as plain data: provider record, located endpoint, pricing, credential reference', async () => {
    const plan = await planner([credential('cred-b', 'beta')]).instance.plan(ALPHA_FIRST, { ...CONTEXT, region: 'europe' });
    expect(plan.attempts.map((attempt) => [attempt.provider.slug, attempt.baseUrl, attempt.upstreamModel, attempt.credential, attempt.availableIndex])).toEqual([
      ['alpha', 'http://127.0.0.1:9102', 'up-alpha', { kind: 'shared' }, 0],
    ]);
    expect(plan.attempts[0]?.provider).toBe(catalog.getProvider('alpha'));
    expect(plan).toMatchObject({ requested: 'test/primary', region: 'europe', available: [{ model: 'test/primary', provider: 'Alpha Cloud', providerSlug: 'alpha' }] });
  });

  it('pins the session to the attempt that answered and measures it', async () => {
    const { instance, store, stats } = planner();
    const plan = await instance.plan(ALPHA_FIRST, CONTEXT);
    instance.recordOutcomes(plan, [outcome(plan, 0, 'overloaded'), outcome(plan, 1, 'success')], { index: 1, outputTokens: 60 });
    await expect.poll(() => store.get(plan.sticky.key)).toEqual({ provider: 'beta', credentialId: null, model: 'test/primary' });
    expect(stats.snapshot.get('test/primary|beta')).toEqual({ latencyMs: 120, throughputTokensPerSecond: 500 });
    expect(stats.snapshot.has('test/primary|alpha')).toBe(false);
  });

  it.each<[AttemptOutcome['status'], boolean]>([
    ['overloaded', true],
    ['invalid_request', true],
    ['refusal', false],
    ['unsupported', false],
    ['credential_unavailable', false],
  ])('after the pinned provider ended in %s, drops the pin: %s', async (status, dropped) => {
    const { instance, store } = planner();
    const first = await instance.plan(ALPHA_FIRST, CONTEXT);
    instance.recordOutcomes(first, [outcome(first, 0, 'success')], { index: 0 });
    await expect.poll(() => store.get(first.sticky.key)).toBeDefined();
    const second = await instance.plan(ALPHA_FIRST, CONTEXT);
    expect(second.sticky.pin?.provider).toBe('alpha');
    instance.recordOutcomes(second, [outcome(second, 0, status)], null);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await store.get(second.sticky.key)) === undefined).toBe(dropped);
  });
});
