/** The GenAI conventions' message shape for prompts and completions sent to OTLP destinations that opt in. */
import { describe, expect, it } from 'vitest';
import { toGenAiMessages } from '#src/observability/broadcast/map-genai-messages.ts';

describe('toGenAiMessages', () => {
  it('maps text, thinking, tool calls and results to parts, other blocks by their type', () => {
    const messages = toGenAiMessages({
      prompt: {
        system: [{ type: 'text', text: 'Be brief.' }],
        messages: [
          { role: 'user', content: 'What is the weather?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Oslo' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Rain' }, { type: 'image', source: { type: 'url', url: 'https://x' } }] },
        ],
      },
      completion: [{ type: 'thinking', thinking: 'Rain.' }, { type: 'text', text: 'It rains.' }],
    });
    expect(messages).toEqual({
      system: [{ type: 'text', content: 'Be brief.' }],
      input: [
        { role: 'user', parts: [{ type: 'text', content: 'What is the weather?' }] },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 't1', name: 'weather', arguments: { city: 'Oslo' } }] },
        { role: 'user', parts: [{ type: 'tool_call_response', id: 't1', response: 'Rain' }, { type: 'image', source: { type: 'url', url: 'https://x' } }] },
      ],
      output: [{ role: 'assistant', parts: [{ type: 'reasoning', content: 'Rain.' }, { type: 'text', content: 'It rains.' }] }],
    });
  });

  it('has no system instructions or output when there are none', () => {
    expect(toGenAiMessages({ prompt: { messages: [] }, completion: null })).toEqual({ input: [], output: null, system: null });
  });
});
