/**
 * The setup of the suites on OpenAI's Responses API behind the gateway: a test provider of the
 * `openai-responses` family on a fake, and a gateway whose `test/gpt` runs there alone and whose
 * `test/gpt-or-claude` falls back from it to an Anthropic-format fake (Alpha), records flushed every 50 ms.
 */
import { startFakeAnthropic, startFakeOpenAiResponses, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from './routing-support.ts';

/** The `up-responses` test provider on `upstream` (a fake of the Responses API), holding `apiKey`. */
export function responsesProviderYaml(upstream: FakeUpstream, apiKey: string): string {
  return `  up-responses: { family: openai-responses, display_name: "Responses Test", base_url: "${upstream.baseURL}", api_key: "${apiKey}" }`;
}

/** The two fakes and the gateway in front of them. */
export interface ResponsesOrClaudeGateway {
  openai: FakeUpstream;
  alpha: FakeUpstream;
  gateway: TestGateway;
}

/** Starts both fakes and the gateway, the Responses provider holding `apiKey`. */
export async function startResponsesOrClaudeGateway(apiKey: string): Promise<ResponsesOrClaudeGateway> {
  const [openai, alpha] = await Promise.all([startFakeOpenAiResponses(), startFakeAnthropic()]);
  const gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [responsesProviderYaml(openai, apiKey), anthropicProviderYaml('alpha', alpha)],
      [
        modelYaml('test/gpt', [{ provider: 'up-responses', model: 'gpt-test', price: [1, 2] }]),
        modelYaml('test/gpt-or-claude', [
          { provider: 'up-responses', model: 'gpt-test', price: [1, 2] },
          { provider: 'alpha', model: 'up-claude-alpha', price: [1, 2] },
        ]),
      ],
    ),
    env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
  });
  return { openai, alpha, gateway };
}
