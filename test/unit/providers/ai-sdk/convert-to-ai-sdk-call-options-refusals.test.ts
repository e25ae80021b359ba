/**
 * convertToAiSdkCallOptions on what a vendor cannot take: an UnsupportedFeatureError naming it (the attempt
 * moves on), a plain 400 for a client mistake no vendor would accept, and Anthropic-only fields and gateway
 * tools dropped with a warning each, never silently.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { BadRequestError, UnsupportedFeatureError } from '#src/errors.ts';
import { vendorProfile, type AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { convertToAiSdkCallOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';

const PDF = 'JVBERi0xLjQK';

function convert(family: AiSdkFamily, request: Partial<MessageRequest>) {
  return convertToAiSdkCallOptions({
    request: { model: 'vendor/model', max_tokens: 512, messages: [{ role: 'user', content: 'Hi' }], ...request },
    profile: vendorProfile(family),
  });
}

describe('what a vendor cannot take', () => {
  it.each([
    ['openai-chat', { tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'tool type web_search_20250305 (an Anthropic tool) is not supported by OpenAI Chat Completions'],
    ['bedrock', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }] }, 'image URL sources (send the image as base64) is not supported by Amazon Bedrock'],
    ['openai-chat', { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }] }] }, 'PDF URL sources (send the PDF as base64) is not supported by OpenAI Chat Completions'],
    ['google', { messages: [{ role: 'assistant', content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] }] }, 'server_tool_use blocks in assistant messages (messages[0].content[0]) is not supported by Google Gemini'],
  ] as const)('rejects what %s cannot express with an UnsupportedFeatureError naming it', (family, request, reason) => {
    let error: unknown;
    try {
      convert(family, request as unknown as Partial<MessageRequest>);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    expect((error as BadRequestError).publicMessage).toBe(`Invalid request parameters: ${reason}`);
  });

  it('answers a client mistake with a plain 400, which no other endpoint would accept either', () => {
    let error: unknown;
    try {
      convert('google', { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nowhere', content: 'x' }] }] });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).not.toBeInstanceOf(UnsupportedFeatureError);
    expect((error as BadRequestError).publicMessage).toBe('Invalid request parameters: tool_result nowhere does not answer a tool_use of an earlier assistant turn');
  });

  it('skips gateway tools and drops Anthropic-only fields with warnings, never silently', () => {
    const { value, warnings } = convert('google', {
      tools: [{ type: 'gateway:web_fetch' }, { name: 'a', input_schema: {} as never, cache_control: { type: 'ephemeral' } }],
      context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
      messages: [
        { role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, context: 'ctx', citations: { enabled: true } }] },
        { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'opaque' }, { type: 'text', text: 'ok' }] },
      ],
    });
    expect(value.tools).toEqual([{ type: 'function', name: 'a', inputSchema: {} }]);
    expect(value.prompt[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
    expect(warnings).toEqual([
      'context_management dropped: Anthropic context editing has no counterpart',
      'messages[0].content[0].context dropped: document context is Anthropic’s',
      'messages[0].content[0].citations dropped: citations are Anthropic’s',
      'redacted_thinking block dropped: it was not produced by Google Gemini',
      'gateway tool gateway:web_fetch not sent upstream: it is run by the gateway',
      'cache_control on tool a dropped: Google Gemini has no tool cache breakpoints',
    ]);
  });
});
