/**
 * The request bodies Claude Code 2.1.330 actually sent (test/fixtures/claude-code/) translate cleanly for every
 * vendor family: system turns mid-conversation, thinking with `display`, deferred tools, context management,
 * a JSON-string `metadata.user_id`, tool results and a ToolSearch `tool_reference`.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { BadRequestError, UnsupportedFeatureError } from '#src/errors.ts';
import { vendorProfile, type AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { convertToAiSdkCallOptions, safetyIdentifier } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';
import { frameSystemText } from '#src/providers/ai-sdk/convert-to-ai-sdk-system.ts';
import { readFixture } from '#test/helpers/fake-upstreams/index.ts';
import { messageRequestErrors } from '#test/helpers/request-schema.ts';

const BODIES = ['openai-gpt-5-1.1', 'openai-gpt-5-1.2', 'openai-gpt-5-1-tool-search.2', 'claude-sonnet-4-5-system-turns.1', 'claude-sonnet-4-5-system-turns.2'] as const;
const FAMILIES: AiSdkFamily[] = ['openai-chat', 'openai-responses', 'azure', 'openai-compatible', 'google', 'bedrock'];

function body(name: (typeof BODIES)[number]): MessageRequest {
  return readFixture<MessageRequest>('claude-code', name);
}

function translate(family: AiSdkFamily, request: MessageRequest) {
  return convertToAiSdkCallOptions({ request, profile: vendorProfile(family) });
}

describe('what Claude Code sends', () => {
  it.each(BODIES)('%s passes the spec', (name) => {
    expect(messageRequestErrors(body(name))).toEqual([]);
  });

  it.each(BODIES.flatMap((name) => FAMILIES.map((family) => [name, family] as const)))('%s translates for %s without a 400', (name, family) => {
    const { value, warnings } = translate(family, body(name));
    expect(value.prompt.length).toBeGreaterThan(0);
    expect(value.tools?.map((tool) => tool.name)).toContain('DeferredToolPlaceholder');
    expect(warnings).toEqual(expect.arrayContaining(['context_management dropped: Anthropic context editing has no counterpart', expect.stringMatching(/^thinking\.display dropped/)]));
  });

  it('reaches OpenAI Chat with the system turn at its position, every tool offered and the user id forwarded', () => {
    const request = body('openai-gpt-5-1.2');
    const { value, warnings } = translate('openai-chat', request);
    const systemTurn = request.messages[1]?.content as string;

    expect(value.prompt.map((message) => message.role)).toEqual(['system', 'system', 'system', 'user', 'system', 'assistant', 'tool']);
    expect(value.prompt[4]).toEqual({ role: 'system', content: systemTurn });
    expect(value.prompt[5]).toEqual({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'toolu_probe1', toolName: 'Read', input: { file_path: '/tmp/cc-probe/work-gpt/probe.txt' } }] });
    expect(value.prompt[6]).toEqual({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_probe1', toolName: 'Read', output: { type: 'text', value: '1\thello-probe\n2\t' } }] });
    expect(value.tools).toHaveLength(12);
    expect(value.reasoning).toBe('high');
    expect(value.providerOptions).toEqual({ openai: { safetyIdentifier: safetyIdentifier(request.metadata?.user_id ?? '') } });
    expect(safetyIdentifier(request.metadata?.user_id ?? '')).toMatch(/^[a-f0-9]{64}$/);
    expect(warnings).toContain('tools[10].defer_loading dropped: the tool is offered at once');
  });

  it('answers a ToolSearch result with the found tool offered and a line saying it is available', () => {
    const { value } = translate('openai-chat', body('openai-gpt-5-1-tool-search.2'));
    expect(value.tools?.map((tool) => tool.name)).toContain('WebFetch');
    expect(value.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'toolu_probe1', toolName: 'ToolSearch', output: { type: 'text', value: 'Tool "WebFetch" is now available to call.' } }],
    });
  });

  it('answers a tool_reference to a tool the request does not define with the client\'s 400, not a vendor limit', () => {
    const request = body('openai-gpt-5-1-tool-search.2');
    const withoutWebFetch = { ...request, tools: request.tools?.filter((tool) => tool.name !== 'WebFetch') };
    const convert = () => translate('openai-chat', withoutWebFetch);
    expect(convert).toThrow(BadRequestError);
    expect(convert).not.toThrow(UnsupportedFeatureError);
    expect(convert).toThrow('tool_reference in tool_result toolu_probe1 names WebFetch, which is not among the request\'s tools');
  });

  it('keeps a system turn after the tool result last, as a system message on OpenAI and framed user text on Gemini', () => {
    const request = body('claude-sonnet-4-5-system-turns.2');
    const trailing = request.messages.at(-1)?.content as Array<{ text: string }>;
    const text = trailing[0]?.text as string;

    const openai = translate('openai-chat', request).value;
    expect(openai.prompt.slice(-2)).toEqual([expect.objectContaining({ role: 'tool' }), { role: 'system', content: text }]);
    expect(openai.reasoning).toBe('high');

    const gemini = translate('google', request).value;
    expect(gemini.prompt.slice(-2)).toEqual([expect.objectContaining({ role: 'tool' }), { role: 'user', content: [{ type: 'text', text: frameSystemText(text) }] }]);
  });
});
