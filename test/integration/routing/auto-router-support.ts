/**
 * The setup of the auto-router suites: two candidates on one Anthropic-format fake (Alpha) that answers every
 * request with the recorded text answer, `test/cheap` ($0.5/$1 per million tokens) and `test/pricey` ($5/$25),
 * so the price of what served says which one the router picked.
 */
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from './routing-support.ts';

/** The two candidates' catalog entries, both served by provider `alpha`. */
export const CANDIDATES_YAML = [
  modelYaml('test/cheap', [{ provider: 'alpha', model: 'up-cheap', price: [0.5, 1] }]),
  modelYaml('test/pricey', [{ provider: 'alpha', model: 'up-pricey', price: [5, 25] }]),
];

/** Alpha answering every request. */
export function startAnsweringAlpha(): Promise<FakeUpstream> {
  return startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
}

/** Starts Alpha and a gateway whose catalog holds only the two candidates. */
export async function startAutoRouterGateway(): Promise<{ alpha: FakeUpstream; gateway: TestGateway }> {
  const alpha = await startAnsweringAlpha();
  const gateway = await startTestGateway({ catalogYaml: catalogYaml([anthropicProviderYaml('alpha', alpha)], CANDIDATES_YAML) });
  return { alpha, gateway };
}
