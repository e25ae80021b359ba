/**
 * Bedrock Converse tool-call recordings replayed through the gateway to the official SDK: a call with no
 * arguments (an empty input delta) after text, with usage from `metadata` before `messageStop`; and text,
 * two calls, text and a third call in one answer, whose text blocks start with no `contentBlockStart` and
 * whose stream reports no usage at all (estimated, never free).
 */
import { describe, expect, it } from 'vitest';
import { reply, startFakeBedrock } from '#test/helpers/fake-upstreams/index.ts';
import { expectCost, expectWellFormed, finalStreamUsage, gatewayUsage, streamThrough } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';
import { bedrockProviderYaml } from '#test/integration/providers/vendor-gateway-support.ts';

const MODEL = 'e2e/claude-on-bedrock-tools';
// Prices per million tokens: input 3, output 15.
const e2e = useE2eTarget({
  startUpstream: startFakeBedrock,
  providerYaml: (fake) =>
    bedrockProviderYaml(fake, 'AKIAE2ETESTTOOLS0001', 'e2e/secret/bedrock/tools/0001'),
  model: { slug: MODEL, provider: 'bedrock', upstreamModel: '"us.anthropic.claude-sonnet-4-5-20250929-v1:0"', pricing: '{ input: 3, output: 15 }' },
});

const schema = { type: 'object' as const, properties: {} };
const tools = ['updateIssueList', 'tool-a', 'tool-b', 'json'].map((name) => ({ name, description: name, input_schema: schema }));
const request = { model: MODEL, max_tokens: 1024, tools, messages: [{ role: 'user' as const, content: 'Update the issue list.' }] };

describe('Bedrock tool-call recordings', () => {
  it('answers a call with no arguments as an empty input after the text (JSON)', async () => {
    e2e.upstream.enqueue(reply.fixture('amazon-bedrock-tool-no-args'));
    const message = await e2e.client.messages.create(request);
    expect(message.content).toEqual([
      { type: 'text', text: "I'll update the issue list for you." },
      { type: 'tool_use', id: 'tool-use-id', name: 'updateIssueList', input: {} },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    const usage = gatewayUsage(message);
    expect(usage).toMatchObject({ input_tokens: 100, output_tokens: 25 });
    // 100 x $3/M + 25 x $15/M = (300 + 375) / 1e6 = $0.000675
    expectCost(usage.cost, 0.000675);
  });

  it('streams a call with no arguments, with usage from metadata sent before messageStop', async () => {
    e2e.upstream.enqueue(reply.fixture('amazon-bedrock-tool-no-args'));
    const { events, message } = await streamThrough(e2e.client, request);
    expect(expectWellFormed(events).filter((entry) => entry.startsWith('start'))).toEqual(['start 0 text', 'start 1 tool_use']);
    expect(message.content[1]).toEqual({ type: 'tool_use', id: 'tool-use-id', name: 'updateIssueList', input: {} });
    expect(message.stop_reason).toBe('tool_use');
    expectCost(finalStreamUsage(events).cost, 0.000675);
  });

  it('streams text, two calls, text and a call as five blocks in order, and estimates the usage it never got', async () => {
    e2e.upstream.enqueue(reply.fixture('amazon-bedrock-json-with-tools.1'));
    const { events, message } = await streamThrough(e2e.client, request);
    expect(expectWellFormed(events).filter((entry) => entry.startsWith('start'))).toEqual(['start 0 text', 'start 1 tool_use', 'start 2 tool_use', 'start 3 text', 'start 4 tool_use']);
    expect(message.content).toEqual([
      { type: 'text', text: 'Multiple tools.' },
      { type: 'tool_use', id: 'tool-1', name: 'tool-a', input: { a: '1' } },
      { type: 'tool_use', id: 'tool-2', name: 'tool-b', input: { b: '2' } },
      { type: 'text', text: 'Final JSON.' },
      { type: 'tool_use', id: 'json-tool-id', name: 'json', input: { final: 'result' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    const usage = finalStreamUsage(events) as ReturnType<typeof finalStreamUsage> & { estimated?: boolean };
    expect(usage.estimated).toBe(true);
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(usage.cost).toBeGreaterThan(0);
  });
});
