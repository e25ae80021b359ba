/**
 * Converts single Anthropic content blocks (images, documents, search results, tool results, thinking) into AI
 * SDK prompt parts. What a vendor cannot take (a URL source it does not fetch, an unknown source type or media
 * type) is an `UnsupportedFeatureError` naming it; nothing is downloaded on the gateway's side.
 */
import type {
  LanguageModelV4FilePart,
  LanguageModelV4ReasoningPart,
  LanguageModelV4TextPart,
  LanguageModelV4ToolResultOutput,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type {
  DocumentBlockParam,
  ImageBlockParam,
  RedactedThinkingBlockParam,
  SearchResultBlockParam,
  TextBlockParam,
  ThinkingBlockParam,
  ToolResultBlockParam,
} from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import type { AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { unsupportedFeature } from '#src/providers/ai-sdk/check-translatable-fields.ts';
import { decodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';

/** A user-side part: text or a file. */
export type UserPart = LanguageModelV4TextPart | LanguageModelV4FilePart;

// The image media types Anthropic documents; the AI SDK vendors all read these.
const IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

type SourceOf<Block extends { source: unknown }> = Block['source'];
type Base64Source = { type: 'base64'; media_type: string; data: string };
type UrlSource = { type: 'url'; url: string };
type ContentSource = { type: 'content'; content: string | readonly { type: string }[] };

/** An image block as an AI SDK file part. */
export function convertImageBlock(block: ImageBlockParam, profile: AiSdkVendorProfile): LanguageModelV4FilePart {
  const source: SourceOf<ImageBlockParam> = block.source;
  switch (source.type) {
    case 'base64': {
      const { media_type: mediaType, data } = source as Base64Source;
      if (!IMAGE_MEDIA_TYPES.has(mediaType)) throw unsupportedFeature(`image media_type ${mediaType}`, profile);
      return { type: 'file', mediaType, data: { type: 'data', data } };
    }
    case 'url':
      if (!profile.remoteUrls.image) throw unsupportedFeature('image URL sources (send the image as base64)', profile);
      return { type: 'file', mediaType: 'image', data: { type: 'url', url: new URL((source as UrlSource).url) } };
    default:
      throw unsupportedFeature(`image source type ${source.type}`, profile);
  }
}

/**
 * A document block as AI SDK parts: a file part (PDF), a text part (plain text, which every vendor reads), or
 * for a content source its texts and images in order. `citations` has no counterpart outside Anthropic, and
 * `context` none outside a content document; the field check drops them with a warning.
 */
export function convertDocumentBlock(block: DocumentBlockParam, profile: AiSdkVendorProfile): UserPart[] {
  const filename = block.title ?? undefined;
  const source: SourceOf<DocumentBlockParam> = block.source;
  switch (source.type) {
    case 'base64': {
      const { media_type: mediaType, data } = source as Base64Source;
      if (mediaType !== 'application/pdf') throw unsupportedFeature(`document media_type ${mediaType}`, profile);
      return [{ type: 'file', mediaType, data: { type: 'data', data }, ...(filename ? { filename } : {}) }];
    }
    case 'url':
      if (!profile.remoteUrls.pdf) throw unsupportedFeature('PDF URL sources (send the PDF as base64)', profile);
      return [{ type: 'file', mediaType: 'application/pdf', data: { type: 'url', url: new URL((source as UrlSource).url) }, ...(filename ? { filename } : {}) }];
    case 'text': {
      const { media_type: mediaType, data } = source as Base64Source;
      if (mediaType !== 'text/plain') throw unsupportedFeature(`document media_type ${mediaType}`, profile);
      return [{ type: 'text', text: filename ? `${filename}\n\n${data}` : data }];
    }
    case 'content':
      return convertContentDocument(block, source as ContentSource, profile);
    default:
      throw unsupportedFeature(`document source type ${source.type}`, profile);
  }
}

/**
 * A content document (Anthropic's custom content, each block a chunk it may cite): its title, its context and
 * its texts as one text, separated by blank lines, with each image a file part at its place.
 */
function convertContentDocument(block: DocumentBlockParam, source: ContentSource, profile: AiSdkVendorProfile): UserPart[] {
  const items = typeof source.content === 'string' ? [{ type: 'text', text: source.content }] : source.content;
  const parts: UserPart[] = [];
  let texts = [block.title, block.context].filter((text): text is string => typeof text === 'string' && text !== '');
  const flushTexts = (): void => {
    if (texts.length > 0) parts.push({ type: 'text', text: texts.join('\n\n') });
    texts = [];
  };
  for (const item of items) {
    switch (item.type) {
      case 'text': {
        const text = (item as TextBlockParam).text;
        if (text !== '') texts.push(text);
        break;
      }
      case 'image':
        flushTexts();
        parts.push(convertImageBlock(item as ImageBlockParam, profile));
        break;
      default:
        throw unsupportedFeature(`${item.type} blocks in document content`, profile);
    }
  }
  flushTexts();
  return parts;
}

/**
 * A search result as the text a model reads: its title and source, then its texts, separated by blank lines.
 * Its `citations` setting has no counterpart outside Anthropic; the field check drops it with a warning.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/search-results
 */
export function searchResultText(block: SearchResultBlockParam): string {
  const texts = block.content.map((item) => item.text).filter((text) => text !== '');
  return [`Search result: ${block.title}\nSource: ${block.source}`, ...texts].join('\n\n');
}

/**
 * The text standing for a `tool_reference` (what a tool search returns, e.g. Claude Code's ToolSearch): on
 * Anthropic it loads a deferred tool's definition; elsewhere every tool is offered at once, so the referenced
 * tool is already callable and the reference only says so.
 */
export function toolReferenceText(toolName: string): string {
  return `Tool "${toolName}" is now available to call.`;
}

/**
 * The text that opens an `is_error` tool result holding files on a translated vendor, where the result cannot
 * carry the error flag beside its files.
 */
export const TOOL_ERROR_NOTE = '[The tool reported an error.]';

/**
 * A tool result's content as AI SDK tool output. Text-only results stay text (joined by newlines; search
 * results and content documents without images are text too); results with images or PDFs become `content`.
 * A text-only `is_error` result is `error-text`, which each vendor package writes with the vendor's own error
 * marking (Gemini's `error` key, OpenAI's `{"error": …}`). An `is_error` result with files is `content`, as
 * `error-text` has no room for them, with {@link TOOL_ERROR_NOTE} first: no vendor's tool result holds files
 * and an error flag together through the AI SDK (its Bedrock package never writes Converse's `status`), so
 * the text says it. A `tool_reference` must name a tool of the request (`definedTools`).
 */
export function convertToolResultOutput(
  block: ToolResultBlockParam,
  profile: AiSdkVendorProfile,
  definedTools: ReadonlySet<string> = new Set(),
): LanguageModelV4ToolResultOutput {
  const content = block.content ?? '';
  if (typeof content === 'string') return block.is_error ? { type: 'error-text', value: content } : { type: 'text', value: content };
  const parts: UserPart[] = [];
  for (const item of content) {
    switch (item.type) {
      case 'text':
        parts.push({ type: 'text', text: (item as TextBlockParam).text });
        break;
      case 'image':
        parts.push(convertImageBlock(item as ImageBlockParam, profile));
        break;
      case 'document':
        parts.push(...convertDocumentBlock(item as DocumentBlockParam, profile));
        break;
      case 'search_result':
        parts.push({ type: 'text', text: searchResultText(item as SearchResultBlockParam) });
        break;
      case 'tool_reference': {
        const toolName = (item as { tool_name?: unknown }).tool_name;
        if (typeof toolName !== 'string' || !definedTools.has(toolName)) {
          throw new BadRequestError(`tool_reference in tool_result ${block.tool_use_id} names ${String(toolName)}, which is not among the request's tools`);
        }
        parts.push({ type: 'text', text: toolReferenceText(toolName) });
        break;
      }
      default:
        throw unsupportedFeature(`${item.type} blocks in tool_result content`, profile);
    }
  }
  const texts = parts.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  if (texts.length === parts.length) {
    const value = texts.join('\n');
    return block.is_error ? { type: 'error-text', value } : { type: 'text', value };
  }
  const items: UserPart[] = block.is_error ? [{ type: 'text', text: TOOL_ERROR_NOTE }, ...parts] : parts;
  return {
    type: 'content',
    value: items.map((part) =>
      part.type === 'text'
        ? { type: 'text' as const, text: part.text }
        : { type: 'file' as const, data: part.data, mediaType: part.mediaType, ...(part.filename ? { filename: part.filename } : {}) },
    ),
  };
}

/**
 * A thinking block as a reasoning part. The vendor's replay material is attached only when the signature
 * envelope was made by this vendor's namespace; otherwise the text alone goes (vendors that cannot use
 * unsigned reasoning skip it, and the AI SDK reports that as a warning).
 */
export function convertThinkingBlock(block: ThinkingBlockParam, profile: AiSdkVendorProfile): LanguageModelV4ReasoningPart | undefined {
  const signature = decodeReasoningSignature(block.signature);
  const providerOptions: SharedV4ProviderOptions | undefined =
    signature?.namespace === profile.namespace ? { [profile.namespace]: signature.metadata } : undefined;
  if (block.thinking === '' && !providerOptions) return undefined;
  return { type: 'reasoning', text: block.thinking, ...(providerOptions ? { providerOptions } : {}) };
}

/** A redacted thinking block: replayable only on the vendor that redacted it (Bedrock); dropped elsewhere. */
export function convertRedactedThinkingBlock(
  block: RedactedThinkingBlockParam,
  profile: AiSdkVendorProfile,
  warnings: string[],
): LanguageModelV4ReasoningPart | undefined {
  const signature = decodeReasoningSignature(block.data);
  if (signature?.namespace !== profile.namespace) {
    warnings.push(`redacted_thinking block dropped: it was not produced by ${profile.label}`);
    return undefined;
  }
  return { type: 'reasoning', text: '', providerOptions: { [profile.namespace]: signature.metadata } };
}
