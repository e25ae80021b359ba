/**
 * The gateway of the forward-compatibility suites: one OpenAI Chat upstream (translated) and one
 * Anthropic-format upstream, Alpha (passed through), with a model on each (`test/openai`, `test/anthropic`)
 * and one on both, OpenAI first (`test/both`). What such a suite checks: what Anthropic accepts reaches Alpha
 * byte for byte, is a clear 400 from OpenAI, and in a plan with both OpenAI is skipped for Alpha.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startFakeAnthropic, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml, resetFakes } from './routing-support.ts';

/** The running gateway and its two fakes. */
export interface MixedVendorGateway {
  openai: FakeUpstream;
  alpha: FakeUpstream;
  gateway: TestGateway;
  close(): Promise<void>;
}

/** Starts the two fakes and the gateway routing to them. */
export async function startMixedVendorGateway(): Promise<MixedVendorGateway> {
  const [openai, alpha] = await Promise.all([startFakeOpenAiChat(), startFakeAnthropic()]);
  const gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [`  openai: { family: openai-chat, base_url: "${openai.baseURL}", api_key: "sk-openai-shared-0001" }`, anthropicProviderYaml('alpha', alpha)],
      [
        modelYaml('test/anthropic', [{ provider: 'alpha', model: 'up-alpha', price: [1, 2] }]),
        modelYaml('test/openai', [{ provider: 'openai', model: 'gpt-4.1-nano', price: [1, 2] }]),
        modelYaml('test/both', [
          { provider: 'openai', model: 'gpt-4.1-nano', price: [1, 2] },
          { provider: 'alpha', model: 'up-alpha', price: [1, 2] },
        ]),
      ],
    ),
  });
  return {
    openai,
    alpha,
    gateway,
    async close() {
      await gateway.close();
      await Promise.all([openai.close(), alpha.close()]);
    },
  };
}

/**
 * Starts the gateway before the file's tests (handing it to `onStart`, which keeps what the file reads),
 * stops it after them, and forgets what the fakes recorded before each test.
 */
export function useMixedVendorGateway(onStart: (started: Omit<MixedVendorGateway, 'close'>) => void): void {
  let started: MixedVendorGateway | undefined;
  beforeAll(async () => {
    started = await startMixedVendorGateway();
    onStart(started);
  });
  afterAll(() => started?.close());
  beforeEach(() => {
    if (started) resetFakes(started.openai, started.alpha);
  });
}
