/**
 * Reads a request's messages without assuming their role. A conversation may carry system messages at any
 * position and roles this gateway does not know yet (forwarded to Anthropic as they are), so every walk over
 * `messages` reads content through these helpers rather than trusting `content` to be user or assistant blocks.
 */
import type { AssistantMessageParam, ContentBlockParam, MessageParam, SystemMessageParam, UserMessageParam } from '#src/api-types.ts';

/** A message whose role the gateway knows. */
export type KnownMessageParam = UserMessageParam | AssistantMessageParam | SystemMessageParam;

/** Whether the message's role is one the gateway knows (`user`, `assistant` or `system`). */
export function isKnownRole(message: MessageParam): message is KnownMessageParam {
  return message.role === 'user' || message.role === 'assistant' || message.role === 'system';
}

/** Whether the message is a system message inside the conversation. */
export function isSystemMessage(message: MessageParam): message is SystemMessageParam {
  return message.role === 'system';
}

function isBlockLike(item: unknown): item is ContentBlockParam {
  return typeof item === 'object' && item !== null && typeof (item as { type?: unknown }).type === 'string';
}

/**
 * The content blocks of a message: its array content, or none for string or absent content. An unknown role's
 * content was not validated, so only its items that look like blocks (objects with a string `type`) are given.
 */
export function contentBlocks(message: MessageParam): readonly ContentBlockParam[] {
  const content: unknown = message.content;
  if (!Array.isArray(content)) return [];
  return isKnownRole(message) ? (content as ContentBlockParam[]) : content.filter(isBlockLike);
}

/** The message's content when it is a plain string. */
export function stringContent(message: MessageParam): string | undefined {
  const content: unknown = message.content;
  return typeof content === 'string' ? content : undefined;
}

/**
 * The leading run of system messages, before the first message of any other role: they extend the system
 * prompt, where a later system message applies only from its own position on.
 */
export function leadingSystemMessages(messages: readonly MessageParam[]): SystemMessageParam[] {
  const leading: SystemMessageParam[] = [];
  for (const message of messages) {
    if (!isSystemMessage(message)) break;
    leading.push(message);
  }
  return leading;
}

/** The text of a system prompt or system message: a string, or its text blocks joined by newlines. */
export function systemContentText(content: SystemMessageParam['content']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.flatMap((block) => (block.type === 'text' && 'text' in block ? [block.text] : [])).join('\n');
}
