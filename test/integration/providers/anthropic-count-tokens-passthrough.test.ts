/**
 * `count_tokens` on an Anthropic-format upstream is a pass-through like `messages`: the client's beta flags
 * and fields reach the upstream, and the upstream's answer reaches the client whole. With context editing
 * Anthropic answers `context_management.original_input_tokens` next to `input_tokens` (what the count would
 * be without the edits), which the SDK's beta `countTokens` exposes; a field Anthropic adds later must survive too.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const MODEL = 'anthropic/claude-sonnet-4.5';
const CONTEXT_MANAGEMENT = { edits: [{ type: 'clear_tool_uses_20250919' as const }] };

let upstream: FakeUpstream;
let gateway: TestGateway;
// What the fake's count_tokens answers next (it answers that operation outside its reply script).
let countAnswer: unknown;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ countTokensBody: () => countAnswer });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-count-passthrough-0001" }\n` });
});
beforeEach(() => upstream.clear());
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

function client(): Anthropic {
  return new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0, timeout: 10_000 });
}

describe('count_tokens through the gateway to an Anthropic-format upstream', () => {
  it("gives the SDK context editing's original_input_tokens as the upstream answered it", async () => {
    countAnswer = { input_tokens: 912, context_management: { original_input_tokens: 4_310 } };
    const counted = await client().beta.messages.countTokens({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hello' }],
      context_management: CONTEXT_MANAGEMENT,
      betas: ['context-management-2025-06-27'],
    });

    expect(counted.input_tokens).toBe(912);
    expect(counted.context_management).toEqual({ original_input_tokens: 4_310 });
    // The beta list goes upstream as the SDK sent it (it adds its own token-counting flag).
    const sent = upstream.lastRequest();
    expect(String(sent.headers['anthropic-beta']).split(',')).toContain('context-management-2025-06-27');
    expect(sent.body).toEqual({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello' }], context_management: CONTEXT_MANAGEMENT });
  });

  it('keeps a field of the answer the gateway does not know', async () => {
    countAnswer = { input_tokens: 40, future_breakdown_20270101: { tools: 12 } };
    const response = await fetch(`${gateway.baseUrl}/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': gateway.api_key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }] }),
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 40, future_breakdown_20270101: { tools: 12 } });
  });
});
