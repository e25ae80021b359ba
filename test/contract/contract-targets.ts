/**
 * The two targets of the contract suite: the partners' Prism mock and the real gateway. Each exposes the
 * same handles (base URL, an inference key, a management key, a credential id to update), so one suite of
 * HTTP tests runs unchanged against both. Requests that only the mock cannot tell apart (which key kind was
 * sent, whether a credential exists) carry `Prefer: code=…`, which Prism honours and the gateway ignores.
 */
import { startMock } from '#test/helpers/start-mock.ts';
import { startTestGateway } from '#test/helpers/start-gateway.ts';
import { reply, startFakeAnthropic } from '#test/helpers/fake-upstreams/index.ts';

/** One target of the contract suite. */
export interface ContractTarget {
  name: 'mock' | 'server';
  origin: string;
  baseUrl: string;
  inferenceKey: string;
  managementKey: string;
  /** An existing credential of the management key's account (any UUID on the mock). */
  credentialId: string;
  close(): Promise<void>;
}

/** Starts Prism on the generated mock spec. */
export async function startMockTarget(): Promise<ContractTarget> {
  const mock = await startMock();
  return {
    name: 'mock',
    origin: mock.baseUrl.replace(/\/api\/v1$/, ''),
    baseUrl: mock.baseUrl,
    inferenceKey: 'sb-mock-inference-key-000000000000000000000',
    managementKey: 'sb-mock-management-key-00000000000000000000',
    credentialId: '3f0c1f7e-6f7d-4a34-9a51-8f3c2b8e1a10',
    close: () => mock.close(),
  };
}

/** Starts the gateway with a fake Anthropic upstream answering every message with a recorded text reply. */
export async function startServerTarget(): Promise<ContractTarget> {
  const upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  const gateway = await startTestGateway({
    catalogYaml: [
      'providers:',
      `  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-contract-shared-key-0001" }`,
      'models:',
      '  anthropic/claude-sonnet-4.5:',
      '    endpoints:',
      '      - { provider: anthropic, model: claude-sonnet-4-5, pricing: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 } }',
      '',
    ].join('\n'),
  });
  const created = await fetch(`${gateway.baseUrl}/byok`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.management_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'openai', key: 'sk-contract-byok-key-000000000000', name: 'contract' }),
  });
  if (created.status !== 201) throw new Error(`creating the contract credential failed: ${created.status} ${await created.text()}`);
  const { data } = (await created.json()) as { data: { id: string } };
  return {
    name: 'server',
    origin: gateway.origin,
    baseUrl: gateway.baseUrl,
    inferenceKey: gateway.api_key,
    managementKey: gateway.management_key,
    credentialId: data.id,
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}
