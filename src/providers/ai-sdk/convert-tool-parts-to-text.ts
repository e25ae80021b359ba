/**
 * A prompt's tool calls and results written as text, for Amazon Bedrock's Converse API when the request has
 * no active tools (none offered, or `tool_choice: none`, which Converse lacks). Converse refuses tool content
 * in such a request, and the AI SDK's Bedrock package then drops every tool call and result from the
 * conversation with only a warning: the model would be asked about results it never sees. Written as text,
 * in the form the tool loop's final turn uses (src/messages/tool-loop/convert-tool-blocks-to-text.ts), the
 * model reads every call and result; images and PDFs of a result stay files, and a result's cache point
 * stays on its text. Runs on the prompt the translator built, so every block was checked as sent.
 */
import type { LanguageModelV4Message, LanguageModelV4Prompt, LanguageModelV4TextPart, LanguageModelV4ToolCallPart, LanguageModelV4ToolResultPart } from '@ai-sdk/provider';

type UserMessage = Extract<LanguageModelV4Message, { role: 'user' }>;
type UserPart = UserMessage['content'][number];
type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];

function hasToolPart(message: LanguageModelV4Message): boolean {
  if (message.role === 'tool') return true;
  return message.role === 'assistant' && message.content.some((part) => part.type === 'tool-call' || part.type === 'tool-result');
}

function withOptions(part: LanguageModelV4TextPart, from: { providerOptions?: LanguageModelV4TextPart['providerOptions'] }): LanguageModelV4TextPart {
  return from.providerOptions ? { ...part, providerOptions: from.providerOptions } : part;
}

function callText(call: LanguageModelV4ToolCallPart): LanguageModelV4TextPart {
  return withOptions({ type: 'text', text: `[Tool call ${call.toolCallId}: ${call.toolName}(${JSON.stringify(call.input ?? {})})]` }, call);
}

/** The result as a text part (its heading and text), followed by its files. */
function resultParts(result: LanguageModelV4ToolResultPart): UserPart[] {
  const { output } = result;
  const failed = output.type === 'error-text' || output.type === 'error-json' || output.type === 'execution-denied';
  const texts: string[] = [];
  const files: UserPart[] = [];
  switch (output.type) {
    case 'text':
    case 'error-text':
      texts.push(output.value);
      break;
    case 'json':
    case 'error-json':
      texts.push(JSON.stringify(output.value));
      break;
    case 'execution-denied':
      texts.push(output.reason ?? 'The tool call was denied.');
      break;
    case 'content':
      for (const item of output.value) {
        if (item.type === 'text') texts.push(item.text);
        else if (item.type === 'file') files.push(item);
        else texts.push(`[${item.type}]`);
      }
      break;
  }
  const heading = `[Tool result ${result.toolCallId}${failed ? ' (error)' : ''}]`;
  return [withOptions({ type: 'text', text: [heading, ...texts].join('\n') }, result), ...files];
}

function assistantPart(part: AssistantPart): AssistantPart[] {
  if (part.type === 'tool-call') return [callText(part)];
  // A provider-executed result in an assistant turn (never made by the translators from a client's request).
  if (part.type === 'tool-result') return resultParts(part).filter((item): item is LanguageModelV4TextPart => item.type === 'text');
  return [part];
}

/** The prompt with every tool call and result as text; the same prompt when it has none. */
export function convertToolPartsToText(prompt: LanguageModelV4Prompt): LanguageModelV4Prompt {
  if (!prompt.some(hasToolPart)) return prompt;
  return prompt.map((message): LanguageModelV4Message => {
    if (message.role === 'assistant') return { ...message, content: message.content.flatMap(assistantPart) };
    if (message.role !== 'tool') return message;
    const content = message.content.flatMap((part) => (part.type === 'tool-result' ? resultParts(part) : []));
    return { role: 'user', content, ...(message.providerOptions ? { providerOptions: message.providerOptions } : {}) };
  });
}
