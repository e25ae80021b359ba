/**
 * The setup the Anthropic pass-through suites share: a catalog whose one model is served by one
 * Anthropic-format upstream, a fake Anthropic with a gateway in front of it, and the streamed (or JSON)
 * request each suite sends through the gateway's `/messages`.
 */
import { startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { useSuiteSetup } from '#test/helpers/suite-setup.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

/** A catalog with `model` served as claude-sonnet-4-5 (at $3/$15 per million tokens) by the upstream at `baseUrl`. */
export function anthropicCatalogYaml(model: string, baseUrl: string, apiKey: string): string {
  return [
    'providers:',
    `  anthropic: { base_url: "${baseUrl}", api_key: "${apiKey}" }`,
    'models:',
    `  ${model}:`,
    '    endpoints:',
    '      - { provider: anthropic, model: claude-sonnet-4-5, pricing: { input: 3, output: 15 } }',
    '',
  ].join('\n');
}

/** The fake Anthropic and the gateway in front of it. */
export interface PassthroughSetup {
  readonly upstream: FakeUpstream;
  readonly gateway: TestGateway;
}

/**
 * Registers the suite's hooks: a fake Anthropic and a gateway serving `model` from it, started once and closed
 * after. The handle reads the running setup, so use it inside tests only.
 */
export function usePassthroughGateway(model: string, apiKey: string): PassthroughSetup {
  return useSuiteSetup<PassthroughSetup>({
    async start() {
      const upstream = await startFakeAnthropic();
      return { upstream, gateway: await startTestGateway({ catalogYaml: anthropicCatalogYaml(model, upstream.url, apiKey) }) };
    },
    async stop({ upstream, gateway }) {
      await gateway.close();
      await upstream.close();
    },
  });
}

/** What a suite's request asks for: a stream or not, its `max_tokens`, and the gateway's metadata or not. */
export interface MessagesPost {
  stream: boolean;
  maxTokens?: number;
  metadata?: boolean;
}

/** Posts "Hi" to `model` through the gateway's `/messages` with its API key, over plain fetch (the bytes as sent). */
export function postMessages(gateway: TestGateway, model: string, { stream, maxTokens = 64, metadata = false }: MessagesPost): Promise<Response> {
  return fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json', ...(metadata ? { 'x-gateway-metadata': 'enabled' } : {}) },
    body: JSON.stringify({ model, max_tokens: maxTokens, stream, messages: [{ role: 'user', content: 'Hi' }] }),
  });
}
