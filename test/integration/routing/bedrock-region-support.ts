/**
 * The setup the Bedrock data-region suites share: a gateway whose only provider is Amazon Bedrock (Ollama
 * off), the built-in catalog's models on it, every region's base URL pointing at one fake Bedrock; a call in a
 * data region answered with a fixed usage; and the endpoints `GET /models/{slug}` lists for a model.
 */
import { expect } from 'vitest';
import { bedrockStep, startFakeBedrock, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { messageBody, postMessage, type MessageCall } from '#test/integration/routing/routing-support.ts';
import { useVendorGateway } from '#test/integration/providers/vendor-gateway-support.ts';

/** What the fake reports for every call: 1,000 tokens in, 100 out. */
export const USAGE = { input: 1000, output: 100 } as const;

/** The fake Bedrock and the gateway in front of it. */
export interface BedrockOnlySetup {
  readonly upstream: FakeUpstream;
  readonly gateway: TestGateway;
}

/**
 * Registers the suite's hooks: the fake and the Bedrock-only gateway started once, closed after, the fake
 * cleared before each test. The handle reads the running setup, so use it inside tests only.
 */
export function useBedrockOnlyGateway(): BedrockOnlySetup {
  return useVendorGateway({
    startUpstream: startFakeBedrock,
    providerYaml: ({ url }) => `  bedrock: { base_url: "${url}", regional_base_urls: { us: "${url}", europe: "${url}" }, api_key: "bedrock-shared-region-0001" }`,
  });
}

/** Asks `slug` (in data `region`, or none) after scripting the fake's answer with `USAGE`. */
export function askInRegion(setup: BedrockOnlySetup, slug: string, region: string | undefined): Promise<MessageCall> {
  setup.upstream.enqueue(bedrockStep({ text: 'Hello.', usage: USAGE }));
  return postMessage(setup.gateway, messageBody(slug), region ? { 'x-gateway-region': region } : {});
}

/** An endpoint as `GET /models/{slug}` lists it, as far as these suites read it. */
export interface ListedEndpoint {
  provider: string;
  regions: string[];
  pricing: Record<string, number>;
  regional_pricing?: Record<string, Record<string, number>>;
}

/** The endpoints `GET /models/{slug}` lists (the answer must be a 200). */
export async function listedEndpoints(gateway: TestGateway, slug: string): Promise<ListedEndpoint[]> {
  const response = await fetch(`${gateway.baseUrl}/models/${slug}`, { headers: { authorization: `Bearer ${gateway.api_key}` } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data?: unknown } & Record<string, unknown>;
  return ((body.data ?? body) as { endpoints: ListedEndpoint[] }).endpoints;
}
