/**
 * Cerebras stopped serving `llama-3.3-70b` and `qwen-3-32b` on 2026-02-16 (its deprecations page). On the built-in
 * catalog with Cerebras pointed at a fake, a request for Llama 3.3 70B that allows only Cerebras is a 404 naming
 * the retirement and the providers still serving the model (Groq retired its own on 2026-08-16), and Cerebras is
 * never called; `GET /models` lists both Cerebras endpoints as retired.
 */
import { describe, expect, it } from 'vitest';
import { startFakeOpenAiChat } from '#test/helpers/fake-upstreams/index.ts';
import { errorMessage, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { listedEndpoints } from '#test/integration/routing/bedrock-region-support.ts';
import { useVendorGateway } from './vendor-gateway-support.ts';

const setup = useVendorGateway({
  startUpstream: startFakeOpenAiChat,
  providerYaml: (upstream) => `  cerebras: { base_url: "${upstream.url}", api_key: "csk-cerebras-retired-0001" }`,
});

describe('the Cerebras endpoints retired on 2026-02-16', () => {
  it('are never sent a request: only Cerebras allowed is a 404 naming the retirement', async () => {
    const call = await postMessage(setup.gateway, messageBody('meta-llama/llama-3.3-70b-instruct', { provider: { only: ['cerebras'] } }));
    expect(call.status).toBe(404);
    expect(errorMessage(call)).toContain('meta-llama/llama-3.3-70b-instruct was retired on groq on 2026-08-16 and on cerebras on 2026-02-16; still served by together, fireworks');
    expect(setup.upstream.requests).toHaveLength(0);
  });

  it.each([['meta-llama/llama-3.3-70b-instruct'], ['qwen/qwen3-32b']])('GET /models lists %s on Cerebras as retired', async (model) => {
    const cerebras = (await listedEndpoints(setup.gateway, model)).find((endpoint) => endpoint.provider === 'cerebras') as unknown as Record<string, unknown>;
    expect(cerebras).toMatchObject({ lifecycle: 'retired', retires_at: '2026-02-16T00:00:00Z' });
  });
});
