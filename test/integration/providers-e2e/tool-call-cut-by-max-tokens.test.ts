/**
 * A tool call cut off by the output limit, end to end through the gateway with the official Anthropic SDK
 * against an OpenAI Chat Completions upstream. OpenAI answers `finish_reason: length` with the arguments it
 * had written so far, which are not JSON. Anthropic answers the same situation with HTTP 200, `stop_reason:
 * max_tokens` and the incomplete `tool_use` block ("retry with a higher max_tokens"), so the gateway must
 * too: a 5xx would be retried by the SDK and fail over to another endpoint, paying for the same answer again.
 * A finish other than `length` with broken arguments stays a malformed answer.
 */
import { describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiChat } from '#test/helpers/fake-upstreams/index.ts';
import { expectInBandStreamError, expectWellFormed, finalStreamUsage, gatewayUsage, rejectionOf, streamThrough, WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/gpt-cut';

const e2e = useE2eTarget({
  startUpstream: startFakeOpenAiChat,
  providerYaml: (fake) => `  openai: { base_url: "${fake.baseURL}", api_key: "sk-openai-cut-0001", family: openai-chat }`,
  model: { slug: MODEL, provider: 'openai', upstreamModel: 'gpt-4.1-nano', pricing: '{ input: 1, output: 4 }' },
});

const request = { model: MODEL, max_tokens: 12, tools: [WEATHER_TOOL], messages: [{ role: 'user' as const, content: 'Weather in San Francisco?' }] };
const CUT_ARGUMENTS = '{"location": "San Fr';
const usage = { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 };

function completion(finishReason: string): unknown {
  return {
    id: 'chatcmpl-cut',
    object: 'chat.completion',
    created: 1764665845,
    model: 'gpt-4.1-nano',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_cut_1', type: 'function', function: { name: 'weather', arguments: CUT_ARGUMENTS } }] },
        finish_reason: finishReason,
      },
    ],
    usage,
  };
}

function chunk(delta: unknown, finishReason: string | null = null, withUsage = false): unknown {
  return { id: 'chatcmpl-cut', object: 'chat.completion.chunk', created: 1764665845, model: 'gpt-4.1-nano', choices: [{ index: 0, delta, finish_reason: finishReason }], usage: withUsage ? usage : null };
}

const chunks = [
  chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_cut_1', type: 'function', function: { name: 'weather', arguments: '' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"location"' } }] }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: ': "San Fr' } }] }),
  chunk({}, 'length'),
  { ...(chunk({}) as object), choices: [], usage },
];

describe('a tool call cut off by max_tokens on a translated vendor', () => {
  it('answers 200 with stop_reason max_tokens and the incomplete tool_use, once', async () => {
    e2e.upstream.enqueue(reply.json(completion('length')));
    const message = await e2e.client.messages.create(request);

    expect(message.stop_reason).toBe('max_tokens');
    expect(message.content).toEqual([{ type: 'tool_use', id: 'call_cut_1', name: 'weather', input: {} }]);
    expect(gatewayUsage(message)).toMatchObject({ input_tokens: 40, output_tokens: 12 });
    expect(e2e.upstream.requests).toHaveLength(1);
  });

  it('streams the incomplete tool_use and ends with stop_reason max_tokens, not an error event', async () => {
    e2e.upstream.clear();
    e2e.upstream.enqueue(reply.events(chunks));
    const { events, message } = await streamThrough(e2e.client, request);

    expect(expectWellFormed(events)).toEqual(['start 0 tool_use', 'delta 0 input_json_delta', 'stop 0', 'message_delta']);
    const streamedJson = events.flatMap((event) => (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta' ? [event.delta.partial_json] : [])).join('');
    expect(streamedJson).toBe(CUT_ARGUMENTS);
    expect(message.stop_reason).toBe('max_tokens');
    expect(finalStreamUsage(events)).toMatchObject({ input_tokens: 40, output_tokens: 12 });
    expect(e2e.upstream.requests).toHaveLength(1);
  });

  it('still treats broken arguments under any other finish as a malformed answer', async () => {
    e2e.upstream.clear();
    e2e.upstream.enqueue(reply.json(completion('tool_calls')));
    const error = (await rejectionOf(e2e.client.messages.create(request))) as { status?: number };
    expect(error.status).toBe(502);
  });

  it('streams broken arguments under any other finish as an error event the SDK raises, before their block closes', async () => {
    // Not a cut-off object: no closing makes this JSON. The SDK parses a tool_use block's input when the block
    // stops, so a content_block_stop after it would throw a SyntaxError in the client instead of an API error.
    const broken = [chunks[0], chunk({ tool_calls: [{ index: 0, function: { arguments: "{'location': 'San Francisco'}" } }] }), chunk({}, 'tool_calls'), chunks[4]];
    e2e.upstream.clear();
    e2e.upstream.enqueue(reply.events(broken));
    const events = await expectInBandStreamError(e2e.client, request);
    expect(events.map((event) => event.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    expect(e2e.upstream.requests).toHaveLength(1);
  });
});
