/**
 * A long-context price tier written in the configuration file with only its threshold, input and output
 * prices, as a user adding a vendor's long-context premium writes it. `GET /models` must show the tier in the
 * spec's shape (its cache prices null: cached tokens then cost the tier's input price, as the base tier's do).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ModelList } from '#src/api-types.ts';
import { startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml } from '#test/integration/routing/routing-support.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', upstream)],
      [
        [
          '  test/long:',
          '    context_length: 1000000',
          '    endpoints:',
          '      - provider: alpha',
          '        model: up-long',
          '        pricing: { input: 1, output: 2, long_context: { threshold_tokens: 100, input: 10, output: 20 } }',
        ].join('\n'),
      ],
    ),
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

it('lists a long-context tier given without cache prices in the spec’s shape, its cache prices null', async () => {
  const response = await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${gateway.api_key}` } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as ModelList;
  expect(checkResponse({ path: '/models', method: 'get', status: 200, contentType: 'application/json', body }).errors).toEqual([]);
  const model = body.data.find((entry) => entry.id === 'test/long');
  expect(model?.endpoints[0]?.pricing.long_context).toEqual({ threshold_tokens: 100, input: 10, output: 20, cache_read: null, cache_write: null });
});
