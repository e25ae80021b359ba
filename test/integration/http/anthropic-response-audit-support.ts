/**
 * The setup of the response-direction suites of the Anthropic SDK audit (anthropic-sdk-response-blocks,
 * anthropic-sdk-response-shapes): a fake Anthropic upstream, a gateway whose catalog has one model on it, and
 * the real SDK pointed at the gateway, started before the suite's tests and closed after them.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll } from 'vitest';
import { startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

/** The gateway slug the suites ask for. */
export const AUDIT_MODEL = 'audit/claude';
/** Anthropic's id the gateway calls the upstream with. */
export const AUDIT_UPSTREAM_MODEL = 'claude-sonnet-4-5';

/** What a suite's tests use; read it inside hooks and tests, once `beforeAll` has filled it. */
export interface ResponseAudit {
  upstream: FakeUpstream;
  gateway: TestGateway;
  client: Anthropic;
}

/** Registers the suite's hooks; `providerKey` is the fake's Anthropic key (one per suite, so logs tell them apart). */
export function useResponseAudit(providerKey: string): ResponseAudit {
  const audit = {} as ResponseAudit;
  beforeAll(async () => {
    audit.upstream = await startFakeAnthropic();
    const catalogYaml = [
      'providers:',
      '  ollama: { enabled: false }',
      `  anthropic: { base_url: "${audit.upstream.url}", api_key: "${providerKey}" }`,
      'models:',
      `  ${AUDIT_MODEL}:`,
      '    endpoints:',
      `      - { provider: anthropic, model: ${AUDIT_UPSTREAM_MODEL}, pricing: { input: 3, output: 15 } }`,
      '',
    ].join('\n');
    audit.gateway = await startTestGateway({ catalogYaml });
    audit.client = new Anthropic({ baseURL: `${audit.gateway.origin}/api`, authToken: audit.gateway.api_key, apiKey: null, maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await audit.gateway?.close();
    await audit.upstream?.close();
  });
  return audit;
}
