/**
 * End to end through the real gateway with the official Anthropic SDK, against a Bedrock Converse upstream
 * replaying real recordings: the shared credential is an AWS access key pair from the configuration (the
 * gateway signs with SigV4 locally), a BYOK credential is a Bedrock API key sent as a bearer token. Text,
 * reasoning with its signature, a tool-use round trip whose result must come back as a `toolResult` block,
 * the binary event stream, cost to the cent, and broken answers.
 */
import { describe, expect, it } from 'vitest';
import { readFixture, reply, startFakeBedrock } from '#test/helpers/fake-upstreams/index.ts';
import { decodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';
import { expectCost, expectWellFormed, finalStreamUsage, gatewayUsage, providerOf, streamThrough } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';
import { describeBrokenAnswers, describeByokCredential } from '#test/integration/providers-e2e/e2e-scenarios.ts';
import { bedrockProviderYaml } from '#test/integration/providers/vendor-gateway-support.ts';

const ACCESS_KEY_ID = 'AKIAE2ETESTSHARED001';
const SECRET_ACCESS_KEY = 'e2e/secret+access+key/shared/bedrock/00001';
const BYOK_KEY = 'ABSKe2eBedrockApiKeyByok8h2j';
const MODEL = 'e2e/claude-on-bedrock';
const UPSTREAM_MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
// Prices per million tokens: input 3, output 15, cache read 0.3, cache write 3.75.
const PRICING = '{ input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 }';

const e2e = useE2eTarget({
  startUpstream: startFakeBedrock,
  providerYaml: (fake) => bedrockProviderYaml(fake, ACCESS_KEY_ID, SECRET_ACCESS_KEY),
  model: { slug: MODEL, provider: 'bedrock', upstreamModel: `"${UPSTREAM_MODEL}"`, pricing: PRICING },
});

const strawberry = { model: MODEL, max_tokens: 1024, messages: [{ role: 'user' as const, content: 'How many r are in strawberry?' }] };
const BASH_TOOL = { name: 'bash', description: 'Run a shell command', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] } };
const listFiles = { role: 'user' as const, content: 'List the files here.' };
const encodedModel = encodeURIComponent(UPSTREAM_MODEL);

interface ConverseMessage {
  role: string;
  content: Array<Record<string, unknown>>;
}

describe('Bedrock upstream, AWS credentials from the configuration', () => {
  it('signs with SigV4 and returns the recorded text with usage and cost', async () => {
    e2e.upstream.enqueue(reply.fixture('amazon-bedrock-text'));
    const message = await e2e.client.messages.create(strawberry);
    const recorded = readFixture('amazon-bedrock', 'amazon-bedrock-text') as { output: { message: { content: Array<{ text: string }> } } };

    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: recorded.output.message.content[0]?.text })]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.model).toBe(MODEL);
    expect(providerOf(message)).toBe('Amazon Bedrock');
    const usage = gatewayUsage(message);
    expect(usage).toMatchObject({ input_tokens: 22, output_tokens: 57, is_byok: false });
    // 22 x $3/M + 57 x $15/M = (66 + 855) / 1e6 = $0.000921
    expectCost(usage.cost, 0.000921);

    const sent = e2e.upstream.lastRequest();
    expect(sent?.path).toBe(`/model/${encodedModel}/converse`);
    expect(String(sent?.headers.authorization)).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${ACCESS_KEY_ID}/\\d{8}/us-east-1/bedrock/aws4_request`));
    expect(sent?.body).toMatchObject({ messages: [{ role: 'user', content: [{ text: strawberry.messages[0]?.content }] }] });
  });

  it('returns reasoning as a thinking block with its signature', async () => {
    e2e.upstream.enqueue(reply.fixture('amazon-bedrock-reasoning'));
    const message = await e2e.client.messages.create({ ...strawberry, thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 });
    const recorded = readFixture('amazon-bedrock', 'amazon-bedrock-reasoning') as { output: { message: { content: Array<{ reasoningContent?: { reasoningText: { text: string; signature: string } } }> } } };
    const reasoning = recorded.output.message.content[0]?.reasoningContent?.reasoningText;
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: reasoning?.text });
    // The signature is the gateway's envelope around Bedrock's own, which goes back upstream on the next turn.
    const signature = message.content[0]?.type === 'thinking' ? message.content[0].signature : '';
    expect(JSON.stringify(decodeReasoningSignature(signature))).toContain(reasoning?.signature);
    // 51 x $3/M + 78 x $15/M = (153 + 1170) / 1e6 = $0.001323
    expectCost(gatewayUsage(message).cost, 0.001323);

    e2e.upstream.enqueue(reply.fixture('amazon-bedrock-text'));
    await e2e.client.messages.create({ ...strawberry, thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048, messages: [...strawberry.messages, { role: 'assistant', content: message.content }, { role: 'user', content: 'And in raspberry?' }] });
    const replayed = (e2e.upstream.lastRequest()?.body as { messages: ConverseMessage[] }).messages[1];
    expect(replayed?.content[0]).toEqual({ reasoningContent: { reasoningText: { text: reasoning?.text, signature: reasoning?.signature } } });
  });

  it('streams the recorded text over the AWS event stream', async () => {
    e2e.upstream.enqueue(reply.fixture('amazon-bedrock-text'));
    const { events, message } = await streamThrough(e2e.client, strawberry);
    expect(expectWellFormed(events)).toEqual(['start 0 text', 'delta 0 text_delta', 'stop 0', 'message_delta']);
    expect(message.content[0]?.type === 'text' && message.content[0].text).toContain('strawberry');
    expect(message.model).toBe(MODEL);
    expect(e2e.upstream.lastRequest()?.path).toBe(`/model/${encodedModel}/converse-stream`);
    const usage = finalStreamUsage(events);
    expect(usage).toMatchObject({ input_tokens: 22, output_tokens: 55, is_byok: false });
    // 22 x $3/M + 55 x $15/M = (66 + 825) / 1e6 = $0.000891
    expectCost(usage.cost, 0.000891);
  });

  it('completes a tool-use round trip: the tool_result reaches the upstream as a toolResult block', async () => {
    e2e.upstream.enqueue(reply.fixture('amazon-bedrock-tool-call.1'), reply.fixture('amazon-bedrock-text'));
    const first = await e2e.client.messages.create({ ...strawberry, tools: [BASH_TOOL], messages: [listFiles] });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([{ type: 'tool_use', id: 'tool-use-id', name: 'bash', input: { command: 'ls -l' } }]);
    // 10 x $3/M + 20 x $15/M = (30 + 300) / 1e6 = $0.00033
    expectCost(gatewayUsage(first).cost, 0.00033);
    expect(e2e.upstream.lastRequest()?.body).toMatchObject({ toolConfig: { tools: [{ toolSpec: expect.objectContaining({ name: 'bash' }) }] } });

    await e2e.client.messages.create({
      ...strawberry,
      tools: [BASH_TOOL],
      messages: [listFiles, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tool-use-id', content: 'a.txt b.txt', is_error: false }] }],
    });
    const messages = (e2e.upstream.lastRequest()?.body as { messages: ConverseMessage[] }).messages;
    expect(messages[1]).toEqual({ role: 'assistant', content: [{ toolUse: { toolUseId: 'tool-use-id', name: 'bash', input: { command: 'ls -l' } } }] });
    expect(messages[2]?.content).toEqual([{ toolResult: { toolUseId: 'tool-use-id', content: [{ text: 'a.txt b.txt' }] } }]);
  });

  it('streams a tool call whose input arrives in deltas', async () => {
    e2e.upstream.enqueue(reply.fixture('amazon-bedrock-tool-call.1'));
    const { events, message } = await streamThrough(e2e.client, { ...strawberry, tools: [{ ...BASH_TOOL, name: 'test-tool' }], messages: [listFiles] });
    expect(expectWellFormed(events)).toEqual(['start 0 tool_use', 'delta 0 input_json_delta', 'stop 0', 'message_delta']);
    expect(message.content).toEqual([{ type: 'tool_use', id: 'tool-use-id', name: 'test-tool', input: { value: 'Sparkle Day' } }]);
    expect(message.stop_reason).toBe('tool_use');
    // 125 x $3/M + 45 x $15/M = (375 + 675) / 1e6 = $0.00105
    expectCost(finalStreamUsage(events).cost, 0.00105);
  });
});

describeBrokenAnswers('Bedrock upstream', {
  suite: e2e,
  request: strawberry,
  recording: (delivery) => reply.fixture('amazon-bedrock-text', delivery),
});

describeByokCredential('Bedrock upstream', {
  suite: e2e,
  provider: 'bedrock',
  key: BYOK_KEY,
  sentAs: '(a Bedrock API key) as a bearer token',
  keyOf: (sent) => sent.headers.authorization,
  expectedKey: `Bearer ${BYOK_KEY}`,
  request: strawberry,
  replies: { message: reply.fixture('amazon-bedrock-text'), stream: reply.fixture('amazon-bedrock-text') },
  cost: 0.000921,
  sharedSecret: SECRET_ACCESS_KEY,
});
