/**
 * Where the web plugins read their input and put what they found: the text of the last user turn, and a text
 * block appended to that same turn (after the client's own content, so block positions the client sent are
 * unchanged). Pure.
 */
import type { ContentBlockParam, MessageParam, MessageRequest, UserMessageParam } from '#src/api-types.ts';
import { contentBlocks, stringContent } from '#src/request/message-content.ts';

/** A user turn's position and its text. */
export interface UserTurn {
  index: number;
  text: string;
}

/** The last user turn that has text, and that text (text blocks joined by newlines); null when none has. */
export function lastUserText(messages: readonly MessageParam[]): UserTurn | null {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as MessageParam;
    if (message.role !== 'user') continue;
    const text = stringContent(message) ?? contentBlocks(message).flatMap((block) => (block.type === 'text' && 'text' in block ? [block.text] : [])).join('\n');
    if (text.trim() !== '') return { index, text: text.trim() };
  }
  return null;
}

/** The request with `text` appended as a text block to the user turn at `index`. */
export function appendToUserTurn(request: MessageRequest, index: number, text: string): MessageRequest {
  const message = request.messages[index] as UserMessageParam;
  const own = stringContent(message);
  const blocks: ContentBlockParam[] = own !== undefined ? [{ type: 'text', text: own }] : [...contentBlocks(message)];
  const messages = [...request.messages];
  messages[index] = { ...message, content: [...blocks, { type: 'text', text }] } as UserMessageParam;
  return { ...request, messages };
}

/** A prompt with `{date}` replaced by the day's date (UTC, `YYYY-MM-DD`). */
export function fillPrompt(prompt: string, now: Date): string {
  return prompt.replaceAll('{date}', now.toISOString().slice(0, 10));
}

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+/gi;
// Punctuation that ends a sentence or closes a parenthesis around a URL, not part of it.
const TRAILING = /[.,;:!?)\]}>'"]+$/;

/** The distinct http(s) URLs written in a text, in order. */
export function urlsInText(text: string): string[] {
  const urls: string[] = [];
  for (const match of text.matchAll(URL_PATTERN)) {
    const candidate = match[0].replace(TRAILING, '');
    if (URL.canParse(candidate) && !urls.includes(candidate)) urls.push(candidate);
  }
  return urls;
}
