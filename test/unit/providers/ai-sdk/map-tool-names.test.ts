import { describe, expect, it } from 'vitest';
import type { LanguageModelV4Content, LanguageModelV4FunctionTool, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { AiSdkCallOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';
import { mapToolNames, restoreStreamToolName, restoreToolNames, vendorToolName } from '#src/providers/ai-sdk/map-tool-names.ts';
import { toolReferenceText } from '#src/providers/ai-sdk/convert-to-ai-sdk-parts.ts';

const FITS = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const LONG = 'mcp__weather-forecast-service__look_up_the_daily_forecast_for_a_city_by_name';

function tool(name: string): LanguageModelV4FunctionTool {
  return { type: 'function', name, inputSchema: { type: 'object', properties: {} } };
}

/** Options offering `names`, with a past turn that called and answered the first. */
function options(...names: string[]): AiSdkCallOptions {
  const [first = 'f'] = names;
  return {
    prompt: [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: first, input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: first, output: { type: 'text', value: 'ok' } }] },
    ],
    tools: names.map(tool),
    toolChoice: { type: 'tool', toolName: first },
  };
}

function namesIn(mapped: AiSdkCallOptions): { tools: string[]; call: string; result: string; choice: string } {
  const [, assistant, toolTurn] = mapped.prompt;
  const call = assistant?.role === 'assistant' && assistant.content[0]?.type === 'tool-call' ? assistant.content[0].toolName : '';
  const result = toolTurn?.role === 'tool' && toolTurn.content[0]?.type === 'tool-result' ? toolTurn.content[0].toolName : '';
  return { tools: (mapped.tools ?? []).map((entry) => entry.name), call, result, choice: mapped.toolChoice?.type === 'tool' ? mapped.toolChoice.toolName : '' };
}

describe('mapToolNames', () => {
  it.each([
    ['a built-in Claude Code tool', 'Read', false],
    ['exactly 64 characters', `a${'b'.repeat(63)}`, false],
    ['a dash and digits', 'web-fetch_2', false],
    ['an MCP tool past 64 characters', LONG, true],
    ['65 characters', `a${'b'.repeat(64)}`, true],
    ['a dot (Gemini takes it, OpenAI and Bedrock do not)', 'files.read', true],
    ['a leading digit (Gemini refuses it)', '3d_render', true],
    ['a leading dash', '-x', true],
    ['a space', 'read file', true],
  ])('%s (%s): replaced %s', (_name, name, replaced) => {
    const { callOptions, toClient } = mapToolNames(options(name, 'Read'));
    const names = namesIn(callOptions);
    const sent = names.tools[0] as string;
    expect(sent).toMatch(FITS);
    expect(sent !== name).toBe(replaced);
    expect([names.call, names.result, names.choice]).toEqual([sent, sent, sent]);
    expect(names.tools[1]).toBe('Read');
    expect(toClient.get(sent)).toBe(replaced ? name : undefined);
  });

  it('returns the options themselves when every name fits', () => {
    const given = options('Read', 'Bash');
    expect(mapToolNames(given).callOptions).toBe(given);
  });

  it('keeps the start of the name and maps it the same way every time', () => {
    const sent = vendorToolName(LONG);
    expect(sent).toHaveLength(64);
    expect(sent.startsWith(LONG.slice(0, 55))).toBe(true);
    expect(namesIn(mapToolNames(options(LONG)).callOptions).tools[0]).toBe(sent);
  });

  it('tells apart names that share their first 55 characters', () => {
    const { callOptions } = mapToolNames(options(`${LONG}_one`, `${LONG}_two`));
    const [one, two] = namesIn(callOptions).tools;
    expect(one).not.toBe(two);
  });

  it('makes a tool search result name the stand-in the model can call', () => {
    const given = options('ToolSearch', LONG);
    const search = (output: unknown): AiSdkCallOptions => ({
      ...given,
      prompt: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'ToolSearch', input: {} }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'ToolSearch', output: output as never }] },
      ],
    });
    const sent = vendorToolName(LONG);
    const outputOf = (mapped: AiSdkCallOptions) => (mapped.prompt[2]?.role === 'tool' && mapped.prompt[2].content[0]?.type === 'tool-result' ? mapped.prompt[2].content[0].output : undefined);
    const both = `${toolReferenceText(LONG)}\n${toolReferenceText('Read')}`;
    expect(outputOf(mapToolNames(search({ type: 'text', value: both })).callOptions)).toEqual({ type: 'text', value: `${toolReferenceText(sent)}\n${toolReferenceText('Read')}` });
    const content = { type: 'content', value: [{ type: 'text', text: toolReferenceText(LONG) }, { type: 'image-data', data: 'AAAA', mediaType: 'image/png' }] };
    expect(outputOf(mapToolNames(search(content)).callOptions)).toEqual({ ...content, value: [{ type: 'text', text: toolReferenceText(sent) }, content.value[1]] });
    expect(outputOf(mapToolNames(search({ type: 'text', value: `about ${LONG}` })).callOptions)).toEqual({ type: 'text', value: `about ${LONG}` });
  });

  it('leaves a vendor tool alone', () => {
    const given = options(LONG);
    const provider = { type: 'provider' as const, id: 'openai.web_search' as const, name: 'web search', args: {} };
    const { callOptions } = mapToolNames({ ...given, tools: [...(given.tools ?? []), provider] });
    expect(callOptions.tools?.[1]).toBe(provider);
  });

  it('gives the client its names back in content and stream parts', () => {
    const { toClient } = mapToolNames(options(LONG));
    const sent = vendorToolName(LONG);
    const content: LanguageModelV4Content[] = [
      { type: 'text', text: 'checking' },
      { type: 'tool-call', toolCallId: 'c2', toolName: sent, input: '{}' },
      { type: 'tool-call', toolCallId: 'c3', toolName: 'Read', input: '{}' },
    ];
    expect(restoreToolNames(content, toClient).map((part) => (part.type === 'tool-call' ? part.toolName : part.type))).toEqual(['text', LONG, 'Read']);
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'tool-input-start', id: 'c2', toolName: sent },
      { type: 'tool-input-delta', id: 'c2', delta: '{}' },
      { type: 'tool-call', toolCallId: 'c2', toolName: sent, input: '{}' },
    ];
    const restored = parts.map((part) => restoreStreamToolName(part, toClient));
    expect(restored.map((part) => ('toolName' in part ? part.toolName : part.type))).toEqual([LONG, 'tool-input-delta', LONG]);
    expect(restored[1]).toBe(parts[1]);
  });
});
