/**
 * Where the web plugins read their input and put what they found: the text of the user's new prompt, and a
 * text block appended to that same turn (after the client's own content, so block positions the client sent are
 * unchanged). Pure.
 */
import type { ContentBlockParam, MessageParam, MessageRequest, UserMessageParam } from '#src/api-types.ts';
import { contentBlocks, stringContent } from '#src/request/message-content.ts';
import { holdsUserWords, withoutSystemReminders } from '#src/request/user-words.ts';

/** A user turn's position and its text. */
export interface UserTurn {
  index: number;
  text: string;
}

/**
 * The user's new prompt: the last user turn, when it holds text other than `<system-reminder>` elements and
 * only system messages or an assistant prefill follow it; null otherwise. A turn of tool results alone (with
 * or without a client's reminders) continues a prompt already answered (an agent's loop), so it asks for
 * nothing new: the web plugins search and fetch once per prompt, not per turn. The text is the user's words
 * alone, reminders left out.
 */
export function newUserPrompt(messages: readonly MessageParam[]): UserTurn | null {
  let index = messages.length - 1;
  while (index >= 0 && (messages[index] as MessageParam).role === 'system') index -= 1;
  if (index >= 0 && (messages[index] as MessageParam).role === 'assistant') index -= 1;
  while (index >= 0 && (messages[index] as MessageParam).role === 'system') index -= 1;
  const message = messages[index];
  // Claude Code's `<system-reminder>` notes are not written by the user: never a question to search for.
  if (message === undefined || !holdsUserWords(message)) return null;
  const own = stringContent(message);
  const texts = own !== undefined ? [own] : contentBlocks(message).flatMap((block) => (block.type === 'text' && 'text' in block ? [block.text] : []));
  const text = texts.map(withoutSystemReminders).filter((part) => part !== '').join('\n');
  return text !== '' ? { index, text } : null;
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
