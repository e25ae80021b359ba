/**
 * The setup the vendor price suites share: one fake vendor on 127.0.0.1 in front of a gateway on the built-in
 * catalog, the vendor's preset pointed at the fake, so that a request names a real catalog model and is charged
 * at the prices the catalog publishes for it.
 */
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '#test/helpers/start-gateway.ts';
import { useSuiteSetup } from '#test/helpers/suite-setup.ts';

/**
 * A catalog file of the built-in models whose `providers:` are the given YAML lines. The local `ollama` preset
 * needs no key, so it would count as reachable (on 127.0.0.1:11434, where nothing of ours listens): it is off.
 */
export function builtInCatalogYaml(...providers: string[]): string {
  return ['providers:', '  ollama: { enabled: false }', ...providers, ''].join('\n');
}

/** The built-in `bedrock` provider pointed at a fake Bedrock, signing with the given AWS key pair in us-east-1. */
export function bedrockProviderYaml(upstream: Pick<FakeUpstream, 'url'>, accessKeyId: string, secretAccessKey: string): string {
  return ['  bedrock:', `    base_url: "${upstream.url}"`, `    aws: { region: us-east-1, access_key_id: "${accessKeyId}", secret_access_key: "${secretAccessKey}" }`].join('\n');
}

/** The fake vendor and the gateway in front of it. */
export interface VendorGateway<U extends FakeUpstream> {
  upstream: U;
  gateway: TestGateway;
}

/** What the suite's vendor is: how to start its fake and its provider line pointed at that fake. */
export interface VendorGatewayOptions<U extends FakeUpstream> extends TestGatewayOptions {
  startUpstream(): Promise<U>;
  providerYaml(upstream: U): string;
  /** How long starting may take (the built-in catalog's gateway can be slow to start on a busy machine). */
  startTimeoutMs?: number;
}

/**
 * Registers the suite's hooks: the fake and the gateway started once before its tests, closed after them, and
 * the fake cleared before each. The returned handle reads the running setup, so use it inside hooks and tests.
 */
export function useVendorGateway<U extends FakeUpstream>({ startUpstream, providerYaml, startTimeoutMs, ...gatewayOptions }: VendorGatewayOptions<U>): VendorGateway<U> {
  return useSuiteSetup({
    async start() {
      const upstream = await startUpstream();
      const gateway = await startTestGateway({ ...gatewayOptions, catalogYaml: builtInCatalogYaml(providerYaml(upstream)) });
      return { upstream, gateway };
    },
    async stop({ upstream, gateway }) {
      await gateway.close();
      await upstream.close();
    },
    reset: ({ upstream }) => upstream.clear(),
    timeoutMs: startTimeoutMs,
  });
}
