/**
 * Numbers and booleans of the configuration file read from the environment (`${VAR}`, `${VAR:-default}`), as a
 * twelve-factor deployment writes prices, limits and switches: interpolated values are strings, and a number or
 * boolean field takes a string holding one. The gateway starts and `GET /models` shows the numbers.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ModelList } from '#src/api-types.ts';
import { startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml } from '#test/integration/routing/routing-support.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  gateway = await startTestGateway({
    env: { HOUSE_INPUT_PRICE: '2.5', HOUSE_CONTEXT: '131072', FETCH_ENABLED: 'false' },
    catalogYaml: `${catalogYaml(
      [anthropicProviderYaml('alpha', upstream)],
      [
        [
          '  test/house:',
          '    context_length: ${HOUSE_CONTEXT}',
          '    capabilities: { tools: "${HOUSE_TOOLS:-true}" }',
          '    endpoints:',
          '      - { provider: alpha, model: up-house, pricing: { input: ${HOUSE_INPUT_PRICE}, output: "${HOUSE_OUTPUT_PRICE:-10}" } }',
        ].join('\n'),
      ],
    )}server_tools:\n  web_fetch: { enabled: \${FETCH_ENABLED}, timeout_ms: \${FETCH_TIMEOUT_MS:-15000} }\n`,
  });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

it('starts with numbers and booleans from the environment, and lists them as numbers', async () => {
  const response = await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${gateway.api_key}` } });
  const model = ((await response.json()) as ModelList).data.find((entry) => entry.id === 'test/house');
  expect(model).toMatchObject({ context_length: 131072, features: { tools: true } });
  expect(model?.endpoints[0]?.pricing).toMatchObject({ input: 2.5, output: 10 });
});
