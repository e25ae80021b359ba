/**
 * Which user turns hold the user's own words. Claude Code puts `<system-reminder>` text blocks (todo nudges,
 * CLAUDE.md context, file-change notices) in user turns, also in the turns that carry its tool results: such
 * a turn continues the prompt it serves (an agent's loop) and asks nothing new. The context estimate (where
 * the current turn starts), context compression (which prompt it keeps) and the web plugins (what they search)
 * read a turn through this one definition, so they agree on where the user last spoke. Pure.
 */
import type { MessageParam } from '#src/api-types.ts';
import { contentBlocks, stringContent } from '#src/request/message-content.ts';

const REMINDER_OPEN = '<system-reminder>';
// Matched lazily, one element at a time.
const SYSTEM_REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
const NOT_SPACE = /\S/;

/** A text without its `<system-reminder>` elements, trimmed. */
export function withoutSystemReminders(text: string): string {
  return text.includes(REMINDER_OPEN) ? text.replace(SYSTEM_REMINDER, '').trim() : text.trim();
}

// Tested without trimming: a turn's text may be a whole pasted file, read on every request.
function isWords(text: string): boolean {
  return NOT_SPACE.test(text.includes(REMINDER_OPEN) ? text.replace(SYSTEM_REMINDER, '') : text);
}

/**
 * Whether a message is a user turn with something the user added: text other than `<system-reminder>`
 * elements, or a block other than a tool result or text (an image, a document). A turn of tool results and
 * reminders alone is not one: it continues the latest turn that is.
 */
export function holdsUserWords(message: MessageParam): boolean {
  if (message.role !== 'user') return false;
  const own = stringContent(message);
  if (own !== undefined) return isWords(own);
  return contentBlocks(message).some((block) => {
    if (block.type === 'tool_result') return false;
    return block.type !== 'text' || !('text' in block) || isWords(block.text);
  });
}
