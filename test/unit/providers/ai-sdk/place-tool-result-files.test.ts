/** Where a tool result's images and PDFs go, per family: in the result, in a user turn after it, or beside one text. */
import { describe, expect, it } from 'vitest';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { placeToolResultFiles, toolResultFilePlacement } from '#src/providers/ai-sdk/place-tool-result-files.ts';

const image = { type: 'file' as const, data: { type: 'data' as const, data: 'iVBORw0KGgo=' }, mediaType: 'image/png' };
const pdf = { type: 'file' as const, data: { type: 'data' as const, data: 'JVBERi0=' }, mediaType: 'application/pdf', filename: 'a.pdf' };

const calls: LanguageModelV4Prompt[number] = {
  role: 'assistant',
  content: [
    { type: 'tool-call', toolCallId: 't1', toolName: 'shot', input: {} },
    { type: 'tool-call', toolCallId: 't2', toolName: 'read', input: {} },
    { type: 'tool-call', toolCallId: 't3', toolName: 'read', input: {} },
  ],
};
// Two tool messages answering one assistant turn: nothing may come between them.
const prompt: LanguageModelV4Prompt = [
  calls,
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'shot', output: { type: 'content', value: [image] } }] },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 't2', toolName: 'read', output: { type: 'content', value: [{ type: 'text', text: 'Page 1' }, pdf, { type: 'text', text: 'Page 2' }, image] } },
      { type: 'tool-result', toolCallId: 't3', toolName: 'read', output: { type: 'text', value: 'plain' } },
    ],
  },
  { role: 'user', content: [{ type: 'text', text: 'Go on.' }] },
];

describe('toolResultFilePlacement', () => {
  it.each([
    ['openai-chat', 'user-turn'],
    ['azure', 'user-turn'],
    ['google', 'one-text-first'],
    // Its supports_multi_part_tool_content quirk decides (provider-quirks integration test).
    ['openai-compatible', 'in-result'],
    ['openai-responses', 'in-result'],
    ['bedrock', 'in-result'],
  ] as const)('%s: %s', (family, placement) => {
    expect(toolResultFilePlacement(family)).toBe(placement);
  });
});

describe('placeToolResultFiles', () => {
  it('user-turn: results keep their text and say where the files went; one user message after the run of tool messages holds them', () => {
    expect(placeToolResultFiles(prompt, 'user-turn')).toEqual([
      calls,
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'shot', output: { type: 'text', value: '[The tool returned an image, attached to the next user message.]' } }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 't2', toolName: 'read', output: { type: 'text', value: 'Page 1\nPage 2\n[The tool returned an image and a document, attached to the next user message.]' } },
          prompt[2]?.content[1],
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Attached: what the tool calls above returned as files.' }, image, pdf, image] },
      prompt[3],
    ]);
  });

  it('one-text-first: each result with files is one text (its texts joined, or naming its files) and then its files', () => {
    expect(placeToolResultFiles(prompt, 'one-text-first')).toEqual([
      calls,
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'shot', output: { type: 'content', value: [{ type: 'text', text: 'The tool returned an image.' }, image] } }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 't2', toolName: 'read', output: { type: 'content', value: [{ type: 'text', text: 'Page 1\nPage 2' }, pdf, image] } }, prompt[2]?.content[1]],
      },
      prompt[3],
    ]);
  });

  it('in-result: the prompt as it is', () => {
    expect(placeToolResultFiles(prompt, 'in-result')).toBe(prompt);
  });
});
