/** Tool calls and results as text for Converse without active tools: what each part becomes. */
import { describe, expect, it } from 'vitest';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { convertToolPartsToText } from '#src/providers/ai-sdk/convert-tool-parts-to-text.ts';

const cachePoint = { bedrock: { cachePoint: { type: 'default' } } };
const image = { type: 'file' as const, data: { type: 'data' as const, data: 'iVBORw0KGgo=' }, mediaType: 'image/png' };

describe('convertToolPartsToText', () => {
  it('writes calls and results as text, keeps a result image as a file and a cache point on the text', () => {
    const prompt: LanguageModelV4Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'Go.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool-call', toolCallId: 't1', toolName: 'read', input: { path: 'a' } }, { type: 'tool-call', toolCallId: 't2', toolName: 'shot', input: {} }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 't1', toolName: 'read', output: { type: 'error-text', value: 'no such file' } },
          { type: 'tool-result', toolCallId: 't2', toolName: 'shot', output: { type: 'content', value: [{ type: 'text', text: 'Taken.' }, image] }, providerOptions: cachePoint },
        ],
      },
    ];
    expect(convertToolPartsToText(prompt)).toEqual([
      prompt[0],
      { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'text', text: '[Tool call t1: read({"path":"a"})]' }, { type: 'text', text: '[Tool call t2: shot({})]' }] },
      {
        role: 'user',
        content: [{ type: 'text', text: '[Tool result t1 (error)]\nno such file' }, { type: 'text', text: '[Tool result t2]\nTaken.', providerOptions: cachePoint }, image],
      },
    ]);
  });

  it('writes a JSON result as its JSON text', () => {
    const prompt: LanguageModelV4Prompt = [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 't3', toolName: 'count', output: { type: 'json', value: { n: 2 } } }] }];
    expect(convertToolPartsToText(prompt)).toEqual([{ role: 'user', content: [{ type: 'text', text: '[Tool result t3]\n{"n":2}' }] }]);
  });

  it('returns a prompt without tool parts as it is', () => {
    const prompt: LanguageModelV4Prompt = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'Hi' }] }];
    expect(convertToolPartsToText(prompt)).toBe(prompt);
  });
});
