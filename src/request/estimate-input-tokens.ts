/**
 * The gateway's one input-token estimate, for `count_tokens` on vendors without a count endpoint and for the
 * auto-router's prompt size. No tokenizer runs: it is an estimate and says so. One rule per kind of content:
 * - text (text blocks, string content, system text, thinking, a plain-text or content document, a search
 *   result, a tool result's text): its characters / 4, the rule of thumb OpenAI and Anthropic both publish;
 * - a tool call (`tool_use`, `server_tool_use`): its name and JSON input, as text;
 * - tool definitions: their JSON, as text (the model reads the schema);
 * - an image: 1,600 tokens, Anthropic's figure for an image of about 1.15 megapixels (the largest it does not
 *   scale down);
 * - a PDF: 3,000 tokens per page (Anthropic: 1,500 to 3,000 text tokens a page, plus the page as an image),
 *   a page counted as 100 KB of PDF bytes, at least one page; a PDF the request only points at (URL, file)
 *   counts one page, its size being unknown;
 * - redacted thinking: its encrypted data, as text;
 * - anything else (server tool results, blocks of types the gateway does not know): its JSON, as text.
 * Base64 data is never counted as text: binary content is priced by the rules above.
 */
import type { ContentBlockParam, CountTokensRequest, MessageParam } from '#src/api-types.ts';
import { contentBlocks, stringContent } from '#src/request/message-content.ts';
import { holdsUserWords } from '#src/request/user-words.ts';

/** Characters per token for text. */
export const CHARACTERS_PER_TOKEN = 4;
/** Tokens of one image. */
export const IMAGE_TOKENS = 1_600;
/** Tokens of one PDF page. */
export const PDF_PAGE_TOKENS = 3_000;
/** PDF bytes counted as one page. */
export const PDF_PAGE_BYTES = 100 * 1024;

/** What an estimate adds up: characters of text, and tokens of binary content. */
interface Tally {
  characters: number;
  tokens: number;
}

type Source = { type?: unknown; media_type?: unknown; data?: unknown; content?: unknown };

function pdfTokens(source: Source): number {
  if (source.type !== 'base64' || typeof source.data !== 'string') return PDF_PAGE_TOKENS;
  const bytes = Math.floor((source.data.length * 3) / 4);
  return Math.max(1, Math.ceil(bytes / PDF_PAGE_BYTES)) * PDF_PAGE_TOKENS;
}

function addDocument(tally: Tally, source: Source): void {
  if (source.type === 'text' && typeof source.data === 'string') tally.characters += source.data.length;
  else if (source.type === 'content') addContent(tally, source.content);
  else tally.tokens += pdfTokens(source);
}

/** A string, or an array of blocks (a tool result's, a content document's, a search result's content). */
function addContent(tally: Tally, content: unknown): void {
  if (typeof content === 'string') tally.characters += content.length;
  else if (Array.isArray(content)) for (const block of content) if (typeof block === 'object' && block !== null) addBlock(tally, block as ContentBlockParam);
}

function addBlock(tally: Tally, block: ContentBlockParam): void {
  const fields = block as { type: string; text?: unknown; thinking?: unknown; data?: unknown; name?: unknown; input?: unknown; content?: unknown; title?: unknown; source?: unknown };
  switch (fields.type) {
    case 'text':
      tally.characters += typeof fields.text === 'string' ? fields.text.length : 0;
      return;
    case 'thinking':
      tally.characters += typeof fields.thinking === 'string' ? fields.thinking.length : 0;
      return;
    case 'redacted_thinking':
      tally.characters += typeof fields.data === 'string' ? fields.data.length : 0;
      return;
    case 'image':
      tally.tokens += IMAGE_TOKENS;
      return;
    case 'document':
      addDocument(tally, (fields.source ?? {}) as Source);
      return;
    case 'tool_use':
    case 'server_tool_use':
      tally.characters += String(fields.name ?? '').length + (JSON.stringify(fields.input ?? {})?.length ?? 0);
      return;
    case 'tool_result':
      addContent(tally, fields.content);
      return;
    case 'search_result':
      tally.characters += (typeof fields.title === 'string' ? fields.title.length : 0) + (typeof fields.source === 'string' ? fields.source.length : 0);
      addContent(tally, fields.content);
      return;
    default:
      tally.characters += JSON.stringify(block)?.length ?? 0;
  }
}

function addMessage(tally: Tally, message: MessageParam, withThinking = true): void {
  const text = stringContent(message);
  if (text !== undefined) tally.characters += text.length;
  else for (const block of contentBlocks(message)) if (withThinking || (block.type !== 'thinking' && block.type !== 'redacted_thinking')) addBlock(tally, block);
}

/**
 * Where the current turn starts: the last user message holding the user's words (0 when none). Tool results
 * and Claude Code's `<system-reminder>` notes beside them continue that turn, whose tool loop keeps its thinking.
 */
function currentTurnStart(messages: readonly MessageParam[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) if (holdsUserWords(messages[index] as MessageParam)) return index;
  return 0;
}

function estimate(request: Pick<CountTokensRequest, 'system' | 'messages' | 'tools'>, thinkingFrom: number): number {
  const tally: Tally = { characters: 0, tokens: 0 };
  addContent(tally, request.system);
  const { messages } = request;
  for (let index = 0; index < messages.length; index += 1) addMessage(tally, messages[index] as MessageParam, index >= thinkingFrom);
  if (request.tools !== undefined && request.tools.length > 0) tally.characters += JSON.stringify(request.tools).length;
  return Math.ceil(tally.characters / CHARACTERS_PER_TOKEN) + tally.tokens;
}

/** Estimated input tokens of a request's system prompt, messages (every role) and tool definitions. */
export function estimateInputTokens(request: Pick<CountTokensRequest, 'system' | 'messages' | 'tools'>): number {
  return estimate(request, 0);
}

/**
 * Estimated tokens of a request in its model's context window, which is what a context length bounds:
 * Anthropic strips the thinking blocks of turns before the current one (the current turn starts at the last
 * user message holding the user's words, not tool results and reminders alone; its tool-use cycle's thinking
 * stays), so they are not counted.
 */
export function estimateContextTokens(request: Pick<CountTokensRequest, 'system' | 'messages' | 'tools'>): number {
  return estimate(request, currentTurnStart(request.messages));
}

/**
 * Each message's estimate on its own, as `estimateContextTokens` counts it (earlier turns' thinking left out),
 * so that removing messages one by one (context-compression) subtracts what the context check added.
 */
export function contextTokensPerMessage(messages: readonly MessageParam[]): number[] {
  const thinkingFrom = currentTurnStart(messages);
  return messages.map((message, index) => {
    const tally: Tally = { characters: 0, tokens: 0 };
    addMessage(tally, message, index >= thinkingFrom);
    return Math.ceil(tally.characters / CHARACTERS_PER_TOKEN) + tally.tokens;
  });
}
