/**
 * Where a tool result's images and PDFs go, per family: in the result, in a user turn after it, or beside one
 * text; and a note in place of each file an OpenAI-compatible endpoint cannot read.
 */
import { describe, expect, it } from 'vitest';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { placeToolResultFiles, readableFiles, toolResultFilePlacement } from '#src/providers/ai-sdk/place-tool-result-files.ts';

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
    ['openai-chat', {}, 'user-turn'],
    ['azure', {}, 'user-turn'],
    ['google', {}, 'one-text-first'],
    ['openai-compatible', {}, 'user-turn'],
    ['openai-compatible', { supportsMultiPartToolContent: false }, 'user-turn'],
    ['openai-compatible', { supportsMultiPartToolContent: true }, 'in-result'],
    ['openai-responses', {}, 'in-result'],
    ['bedrock', {}, 'in-result'],
  ] as const)('%s %j: %s', (family, quirks, placement) => {
    expect(toolResultFilePlacement(family, quirks)).toBe(placement);
  });
});

describe('readableFiles', () => {
  const none = { images: false, pdfs: false };
  it.each([
    ['openai-compatible', { images: true, pdfs: false }, [true, false]],
    ['openai-compatible', { images: false, pdfs: true }, [false, true]],
    ['openai-compatible', none, [false, false]],
    // Every model of these families reads both.
    ['openai-chat', none, [true, true]],
    ['google', none, [true, true]],
    ['bedrock', none, [true, true]],
  ] as const)('%s %j: image, PDF readable %j', (family, inputs, expected) => {
    const readable = readableFiles(family, inputs);
    expect([readable('image/png'), readable('application/pdf')]).toEqual(expected);
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

  it('a file the endpoint cannot read becomes a note in its place; a result left without files is plain text', () => {
    const placed = placeToolResultFiles(prompt, 'user-turn', (mediaType) => mediaType === 'application/pdf');
    expect(placed).toEqual([
      calls,
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'shot', output: { type: 'text', value: '[The tool returned an image (image/png), which this model cannot read.]' } }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't2',
            toolName: 'read',
            output: { type: 'text', value: 'Page 1\nPage 2\n[The tool returned an image (image/png), which this model cannot read.]\n[The tool returned a document, attached to the next user message.]' },
          },
          prompt[2]?.content[1],
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Attached: what the tool calls above returned as files.' }, pdf] },
      prompt[3],
    ]);
  });

  it('in-result with nothing readable: every result is its text and notes', () => {
    const placed = placeToolResultFiles(prompt, 'in-result', () => false);
    expect(placed[2]?.content[0]).toEqual({
      type: 'tool-result',
      toolCallId: 't2',
      toolName: 'read',
      output: { type: 'text', value: 'Page 1\n[The tool returned a document (application/pdf), which this model cannot read.]\nPage 2\n[The tool returned an image (image/png), which this model cannot read.]' },
    });
  });

  it('in-result: the prompt as it is', () => {
    expect(placeToolResultFiles(prompt, 'in-result')).toBe(prompt);
  });
});
