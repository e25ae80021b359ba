/**
 * What a message request uses that not every endpoint can serve, read from the request alone. The routing plan
 * uses it for `provider.require_parameters`; the auto-router for capability needs and prompt size.
 */
import type { ContentBlockParam, MessageRequest } from '#src/api-types.ts';
import type { RequestParameter } from '#src/routing/plan-types.ts';
import { contentBlocks, leadingSystemMessages, stringContent, systemContentText } from '#src/request/message-content.ts';

/** Media found anywhere in the request's messages, tool results included. */
export interface RequestMedia {
  images: number;
  pdfs: number;
}

const NO_BLOCKS: readonly ContentBlockParam[] = [];

function nestedBlocks(block: ContentBlockParam): readonly ContentBlockParam[] {
  if (block.type === 'tool_result' && 'content' in block && Array.isArray(block.content)) {
    return block.content as ContentBlockParam[];
  }
  return NO_BLOCKS;
}

function* allBlocks(request: Pick<MessageRequest, 'messages'>): Generator<ContentBlockParam> {
  for (const message of request.messages) {
    for (const block of contentBlocks(message)) {
      yield block;
      yield* nestedBlocks(block);
    }
  }
}

/** True for a PDF document block (base64 `application/pdf` or a URL); a plain-text document is not one. */
export function isPdf(block: ContentBlockParam): boolean {
  if (block.type !== 'document' || !('source' in block)) return false;
  const source = block.source as { type: string; media_type?: string };
  // A plain-text document is text for every vendor; only PDF bytes (base64 or URL) need PDF support.
  return source.type === 'url' || source.media_type === 'application/pdf';
}

/** The images inside a content document (`source.type: content`), which go to the vendor as images; else 0. */
export function contentDocumentImages(block: ContentBlockParam): number {
  if (block.type !== 'document' || !('source' in block)) return 0;
  const source = block.source as { type: string; content?: unknown };
  if (source.type !== 'content' || !Array.isArray(source.content)) return 0;
  let images = 0;
  for (const item of source.content as { type?: unknown }[]) if (item?.type === 'image') images += 1;
  return images;
}

function countBlock(media: RequestMedia, block: ContentBlockParam): void {
  if (block.type === 'image') media.images += 1;
  else if (isPdf(block)) media.pdfs += 1;
  else media.images += contentDocumentImages(block);
}

/** Counts the images and PDF documents of a request. */
export function requestMedia(request: MessageRequest): RequestMedia {
  // Every request is counted (routing's parameters), so the blocks are walked in loops, not through allBlocks'
  // generators, which allocate for each message and block.
  const media: RequestMedia = { images: 0, pdfs: 0 };
  for (const message of request.messages) {
    for (const block of contentBlocks(message)) {
      countBlock(media, block);
      for (const nested of nestedBlocks(block)) countBlock(media, nested);
    }
  }
  return media;
}

/** True when the request asks for extended thinking (enabled or adaptive). */
export function requestsThinking(request: MessageRequest): boolean {
  return request.thinking !== undefined && request.thinking.type !== 'disabled';
}

/**
 * The parameters a request uses that an endpoint must support under `provider.require_parameters`. Cache
 * markers are not among them: an endpoint without prompt caching ignores them and still answers correctly.
 */
export function usedParameters(request: MessageRequest): RequestParameter[] {
  const used: RequestParameter[] = [];
  if (request.tools !== undefined && request.tools.length > 0) used.push('tools');
  if (request.tool_choice !== undefined) used.push('tool_choice');
  if (requestsThinking(request)) used.push('thinking');
  const media = requestMedia(request);
  if (media.images > 0) used.push('images');
  if (media.pdfs > 0) used.push('pdf');
  if (request.output_config?.format !== undefined && request.output_config.format !== null) used.push('structured_output');
  if (request.stop_sequences !== undefined && request.stop_sequences.length > 0) used.push('stop_sequences');
  if (request.temperature !== undefined) used.push('temperature');
  if (request.top_p !== undefined) used.push('top_p');
  if (request.top_k !== undefined) used.push('top_k');
  return used;
}

function textOfBlock(block: ContentBlockParam): string {
  if (block.type === 'text' && 'text' in block) return block.text;
  if (block.type === 'tool_result' && 'content' in block && typeof block.content === 'string') return block.content;
  if (block.type === 'tool_use' && 'input' in block) return JSON.stringify(block.input);
  if (block.type === 'thinking' && 'thinking' in block) return block.thinking;
  return '';
}

/**
 * The system prompt of a request: the top-level `system` and the leading system messages, or '' when it has
 * none. A system message later in the conversation is not part of it (it changes as the conversation grows).
 */
export function systemText(request: Pick<MessageRequest, 'system' | 'messages'>): string {
  const texts = [systemContentText(request.system), ...leadingSystemMessages(request.messages).map((message) => systemContentText(message.content))];
  return texts.filter((text) => text !== '').join('\n');
}

/** All the text of a request: system, messages (system messages and tool results included) and tool definitions. */
export function requestText(request: MessageRequest): string {
  const parts: string[] = [systemContentText(request.system)];
  for (const message of request.messages) {
    const text = stringContent(message);
    if (text !== undefined) parts.push(text);
    else for (const block of allBlocks({ messages: [message] })) parts.push(textOfBlock(block));
  }
  if (request.tools !== undefined) parts.push(JSON.stringify(request.tools));
  return parts.join('\n');
}
