/**
 * The setup the Gemini thinking suites share: one fake Gemini behind a gateway whose catalog lists each named
 * upstream model as `test/<upstream>` (thinking-capable, 65,536 output tokens, on the fake), and a question
 * the fake answers "Seven." while recording the `generationConfig` it was sent.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { geminiStep, startFakeGemini, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { useSuiteSetup } from '#test/helpers/suite-setup.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicClient, catalogYaml } from '#test/integration/routing/routing-support.ts';

/** The fake and the gateway in front of it. */
export interface GeminiThinkingSetup {
  readonly gemini: FakeUpstream;
  readonly gateway: TestGateway;
}

/** What the fake was sent, as far as these suites read it. */
export type SentGeminiConfig = { generationConfig: { maxOutputTokens: number; thinkingConfig?: Record<string, unknown> } };

/** The question each suite asks. */
export const question = [{ role: 'user' as const, content: 'How many days in a week?' }];

/**
 * Registers the suite's hooks: the fake and a gateway listing `upstreams` at `price` (USD per million input and
 * output tokens) started once, closed after, the fake cleared before each test. The handle reads the running
 * setup, so use it inside tests only.
 */
export function useGeminiThinkingGateway(upstreams: readonly string[], price: readonly [number, number] = [2, 12]): GeminiThinkingSetup {
  const model = (upstream: string) =>
    [`  test/${upstream}:`, '    context_length: 1000000', '    capabilities: { thinking: true }', `    endpoints: [{ provider: gem, model: ${upstream}, pricing: { input: ${price[0]}, output: ${price[1]} }, max_output_tokens: 65536 }]`].join('\n');
  return useSuiteSetup<GeminiThinkingSetup>({
    async start() {
      const gemini = await startFakeGemini();
      const providers = [`  gem: { family: google, display_name: "Gem Cloud", base_url: "${gemini.baseURL}", api_key: "gem-key-thinking-0001" }`];
      return { gemini, gateway: await startTestGateway({ catalogYaml: catalogYaml(providers, upstreams.map(model)) }) };
    },
    async stop({ gemini, gateway }) {
      await gateway.close();
      await gemini.close();
    },
    reset: ({ gemini }) => gemini.clear(),
  });
}

/** Sends `body` through the SDK (as JSON or a stream) after scripting the fake's thinking answer, "Seven.". */
export async function askSeven(setup: GeminiThinkingSetup, body: Record<string, unknown>, stream = false): Promise<Anthropic.Message> {
  setup.gemini.enqueue(geminiStep({ text: 'Seven.', usage: { input: 20, output: 3, reasoning: 40 } }));
  const client = anthropicClient(setup.gateway);
  if (stream) return client.messages.stream(body as unknown as Anthropic.MessageCreateParamsStreaming).finalMessage();
  return client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming);
}
