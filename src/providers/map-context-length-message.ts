/**
 * Recognises a vendor's refusal of a prompt's length, whatever its words, and says it in Anthropic's: Claude
 * Code looks for "prompt is too long" (and Anthropic's "N tokens > M maximum") to offer compacting the
 * conversation, and a translated vendor's own line would leave it stuck repeating the request. Read only on
 * the error path.
 * @see https://docs.anthropic.com/en/api/errors
 */

/** A vendor's phrasing, and where its numbers are (`sent`: the prompt's tokens, `maximum`: the limit). */
interface LengthPattern {
  pattern: RegExp;
  sent?: number;
  maximum?: number;
}

// Each with the numbers in the order the vendor names them; a vendor's phrasing without numbers last.
const PATTERNS: readonly LengthPattern[] = [
  // Anthropic, also behind Bedrock and Vertex: "prompt is too long: 250000 tokens > 200000 maximum".
  { pattern: /prompt is too long:\s*(\d+) tokens\s*>\s*(\d+) maximum/i, sent: 1, maximum: 2 },
  // OpenAI, DeepSeek and the OpenAI-compatible servers (vLLM says "you requested N tokens").
  { pattern: /maximum context length is (\d+) tokens?\.?.*?(?:resulted in|requested|contains?) (\d+) tokens/is, maximum: 1, sent: 2 },
  // Gemini: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
  { pattern: /input token count \(?(\d+)\)? exceeds the maximum number of tokens allowed \(?(\d+)\)?/i, sent: 1, maximum: 2 },
  // Mistral: "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length".
  { pattern: /prompt contains (\d+) tokens.*?too large for model with (\d+) maximum context length/is, sent: 1, maximum: 2 },
  // xAI: "This model's maximum prompt length is 131072 but the request contains 200000 tokens."
  { pattern: /maximum prompt length is (\d+) but the request contains (\d+) tokens/i, maximum: 1, sent: 2 },
  // The same refusals without numbers: Bedrock's "Input is too long for requested model.", OpenAI Responses'
  // "Your input exceeds the context window of this model", Groq's "Please reduce the length of the messages".
  {
    pattern:
      /prompt is too long|input is too long|too many input tokens|exceeds the context window|maximum context length|context[_ ]length[_ ]exceeded|reduce the length of the messages|exceeds the maximum number of tokens/i,
  },
];

/**
 * Anthropic's words for a vendor's refusal of the prompt's length (`prompt is too long: 250000 tokens >
 * 200000 maximum`, or `prompt is too long` when the vendor named no numbers); undefined for any other message.
 */
export function promptTooLongWords(vendorMessage: string): string | undefined {
  for (const { pattern, sent, maximum } of PATTERNS) {
    const match = pattern.exec(vendorMessage);
    if (!match) continue;
    if (sent === undefined || maximum === undefined) return 'prompt is too long';
    return `prompt is too long: ${match[sent]} tokens > ${match[maximum]} maximum`;
  }
  return undefined;
}
