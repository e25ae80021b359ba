/**
 * A translated vendor's content filter as the official Anthropic SDK reads it: `stop_reason: refusal` with
 * `stop_details`, the field Anthropic sends and the SDK exposes (its `RefusalStopDetails`). A stream's
 * `message_delta` carries the same (test/unit/providers/ai-sdk/ai-sdk-stream-state.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiChat } from '#test/helpers/fake-upstreams/index.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/gpt-filtered';

const e2e = useE2eTarget({
  startUpstream: startFakeOpenAiChat,
  providerYaml: (fake) => `  openai-chat-test: { family: openai-chat, display_name: OpenAI Chat, base_url: "${fake.baseURL}", api_key: "sk-chat-e2e-filter-0001" }`,
  model: { slug: MODEL, provider: 'openai-chat-test', upstreamModel: 'gpt-4.1-mini', pricing: '{ input: 0.4, output: 1.6 }' },
});

const filtered = {
  id: 'chatcmpl-filtered',
  object: 'chat.completion',
  created: 1770933883,
  model: 'gpt-4.1-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' }],
  usage: { prompt_tokens: 12, completion_tokens: 0, total_tokens: 12 },
};
const details = { type: 'refusal', explanation: 'OpenAI Chat Completions stopped the answer with its content filter (content_filter).' };
const request = { model: MODEL, max_tokens: 64, messages: [{ role: 'user' as const, content: 'Something the filter stops.' }] };

describe('a content filter through the Anthropic SDK', () => {
  it('is stop_reason refusal with stop_details in a JSON answer', async () => {
    e2e.upstream.clear();
    e2e.upstream.enqueue(reply.json(filtered));
    const message = await e2e.client.messages.create(request);
    expect(message.stop_reason).toBe('refusal');
    expect(message.stop_details).toEqual(details);
  });
});
