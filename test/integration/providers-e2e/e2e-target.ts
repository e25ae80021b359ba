/**
 * What one end-to-end provider suite runs against: a fake vendor upstream, a real gateway whose catalog holds
 * one provider pointed at it and one model, the official Anthropic SDK pointed at the gateway, and BYOK
 * credentials created over the management API.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, expect } from 'vitest';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

/** A test-only model with the capabilities the scenarios need, served by one endpoint. */
export function modelYaml(options: { slug: string; provider: string; upstreamModel: string; pricing: string; capabilities?: string }): string {
  return [
    '  ' + options.slug + ':',
    '    name: E2E model',
    '    context_length: 200000',
    `    capabilities: ${options.capabilities ?? '{ tools: true, thinking: true, vision: true }'}`,
    '    endpoints:',
    `      - { provider: ${options.provider}, model: ${options.upstreamModel}, pricing: ${options.pricing} }`,
  ].join('\n');
}

/** What one e2e file runs against: a fake vendor upstream, a gateway pointed at it, and the SDK pointed at the gateway. */
export interface E2eTarget {
  upstream: FakeUpstream;
  gateway: TestGateway;
  client: Anthropic;
  close(): Promise<void>;
}

/** How to start one suite's target. */
export interface E2eTargetOptions {
  startUpstream: () => Promise<FakeUpstream>;
  /** The provider's YAML for the upstream, indented under `providers:`. */
  providerYaml: (upstream: FakeUpstream) => string;
  model: Parameters<typeof modelYaml>[0];
}

/**
 * Starts a fake upstream and a gateway whose catalog holds one provider and one model on it. Bodies that stall
 * for a second fail, so the stall cases of the broken-answer scenarios end quickly.
 */
export async function startE2eTarget(options: E2eTargetOptions): Promise<E2eTarget> {
  const upstream = await options.startUpstream();
  const catalogYaml = ['providers:', options.providerYaml(upstream), 'models:', modelYaml(options.model), ''].join('\n');
  const gateway = await startTestGateway({ catalogYaml, env: { SWITCHBOARD_UPSTREAM_BODY_TIMEOUT_MS: '1000' } });
  return {
    upstream,
    gateway,
    client: anthropicClient(gateway),
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

/** A suite's target, readable from its tests once the suite's `beforeAll` has started it. */
export type E2eSuite = Readonly<Omit<E2eTarget, 'close'>>;

/** Starts the target before the file's tests and stops it after them. */
export function useE2eTarget(options: E2eTargetOptions): E2eSuite {
  let target: E2eTarget | undefined;
  beforeAll(async () => {
    target = await startE2eTarget(options);
  });
  afterAll(() => target?.close());
  const started = (): E2eTarget => {
    if (!target) throw new Error('the e2e target is read before its beforeAll started it');
    return target;
  };
  return {
    get upstream() {
      return started().upstream;
    },
    get gateway() {
      return started().gateway;
    },
    get client() {
      return started().client;
    },
  };
}

/** The official SDK pointed at the gateway, as a user configures it. */
export function anthropicClient(gateway: TestGateway): Anthropic {
  return new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: gateway.api_key, apiKey: null, maxRetries: 0, timeout: 10_000 });
}

/** Creates a BYOK credential for `provider` with the management key; returns its id. */
export async function createByokCredential(gateway: TestGateway, provider: string, key: string): Promise<string> {
  const response = await fetch(`${gateway.baseUrl}/byok`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.management_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider, key, name: `e2e ${provider}` }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
}
