import { describe, expect, it } from 'vitest';
import { promptTooLongWords } from '#src/providers/map-context-length-message.ts';

describe('promptTooLongWords', () => {
  it.each([
    ['Anthropic', 'prompt is too long: 250000 tokens > 200000 maximum', 'prompt is too long: 250000 tokens > 200000 maximum'],
    [
      'OpenAI',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 250000 tokens. Please reduce the length of the messages.",
      'prompt is too long: 250000 tokens > 128000 maximum',
    ],
    [
      'vLLM',
      "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion).",
      'prompt is too long: 9000 tokens > 8192 maximum',
    ],
    ['Gemini', 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).', 'prompt is too long: 1200000 tokens > 1048576 maximum'],
    [
      'Mistral',
      'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
      'prompt is too long: 40000 tokens > 32768 maximum',
    ],
    ['xAI', "This model's maximum prompt length is 131072 but the request contains 200000 tokens.", 'prompt is too long: 200000 tokens > 131072 maximum'],
    ['Bedrock', 'Input is too long for requested model.', 'prompt is too long'],
    ['OpenAI Responses', 'Your input exceeds the context window of this model. Please adjust your input and try again.', 'prompt is too long'],
    ['Groq', 'Please reduce the length of the messages or completion.', 'prompt is too long'],
  ])('%s: says it in Anthropic words', (_vendor, message, words) => {
    expect(promptTooLongWords(message)).toBe(words);
  });

  it.each([["Invalid value for 'messages'."], ['max_tokens: 300000 > 64000, which is the maximum allowed number of output tokens'], ['The provided request is not valid']])(
    'leaves another refusal alone: %s',
    (message) => {
      expect(promptTooLongWords(message)).toBeUndefined();
    },
  );
});
