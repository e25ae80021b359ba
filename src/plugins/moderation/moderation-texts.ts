/**
 * What the `moderation` plugin screens: every text the model will read that the client (or the tools it ran)
 * wrote. The system prompt and system messages, then each user turn's string content, text blocks, documents
 * (plain-text sources, content-block sources, their title and context, and the text of PDFs the file-parser
 * read), search results (title and content) and tool results (their string content, or the same blocks nested
 * inside), and the same of messages of roles the gateway does not know (forwarded, so read). The assistant's
 * turns are the model's own. Pure.
 * @see ModerationPlugin in openapi/components/schemas/plugins.yaml
 */
import type { MessageRequest } from '#src/api-types.ts';
import { contentBlocks, isSystemMessage, stringContent, systemContentText } from '#src/request/message-content.ts';

// Blocks are read loosely: a tool result's content and a document's content source hold blocks of their own,
// and an unknown role's content was never validated.
type LooseBlock = { type?: unknown; text?: unknown; title?: unknown; context?: unknown; source?: unknown; content?: unknown };

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** The texts of a block list (or a string) a block holds: a tool result's content, a content source's. */
function nestedTexts(content: unknown, parts: string[]): void {
  if (isText(content)) parts.push(content);
  else if (Array.isArray(content)) for (const block of content) blockTexts(block as LooseBlock, parts);
}

function documentTexts(block: LooseBlock, parts: string[]): void {
  if (isText(block.title)) parts.push(block.title);
  if (isText(block.context)) parts.push(block.context);
  const source = block.source as { type?: unknown; data?: unknown; content?: unknown } | undefined;
  if (source?.type === 'text' && isText(source.data)) parts.push(source.data);
  else if (source?.type === 'content') nestedTexts(source.content, parts);
}

/** Appends the texts the model reads in one block to `parts`. */
function blockTexts(block: LooseBlock, parts: string[]): void {
  if (typeof block !== 'object' || block === null) return;
  switch (block.type) {
    case 'text':
      if (isText(block.text)) parts.push(block.text);
      return;
    case 'document':
      documentTexts(block, parts);
      return;
    case 'search_result':
      if (isText(block.title)) parts.push(block.title);
      nestedTexts(block.content, parts);
      return;
    case 'tool_result':
      nestedTexts(block.content, parts);
      return;
    default:
  }
}

/**
 * The texts to screen: the system prompt (with any system messages) as one, then one per user turn (or turn of
 * an unknown role) that has text (its parts joined by blank lines).
 */
export function moderationTexts(request: Pick<MessageRequest, 'system' | 'messages'>): string[] {
  const texts: string[] = [];
  const system = [systemContentText(request.system)];
  for (const message of request.messages) if (isSystemMessage(message)) system.push(systemContentText(message.content));
  const systemText = system.filter(isText).join('\n\n');
  if (systemText !== '') texts.push(systemText);
  for (const message of request.messages) {
    // A role the gateway does not know is forwarded as it came, so the model reads it: only its own turns pass.
    if (message.role === 'assistant' || isSystemMessage(message)) continue;
    const parts: string[] = [];
    const own = stringContent(message);
    if (isText(own)) parts.push(own);
    for (const block of contentBlocks(message)) blockTexts(block as LooseBlock, parts);
    if (parts.length > 0) texts.push(parts.join('\n\n'));
  }
  return texts;
}
