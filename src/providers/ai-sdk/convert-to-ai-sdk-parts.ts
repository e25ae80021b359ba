/**
 * Converts single Anthropic content blocks (images, documents, tool results, thinking) into AI SDK prompt
 * parts. What a vendor cannot take is a 400 naming the feature; nothing is downloaded on the gateway's side.
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
  ThinkingBlockParam,
  ToolResultBlockParam,
} from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import type { AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { decodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';

/** A user-side part: text or a file. */
export type UserPart = LanguageModelV4TextPart | LanguageModelV4FilePart;

/** An image block as an AI SDK file part. */
export function convertImageBlock(block: ImageBlockParam, profile: AiSdkVendorProfile): LanguageModelV4FilePart {
  if (block.source.type === 'base64') {
    return { type: 'file', mediaType: block.source.media_type, data: { type: 'data', data: block.source.data } };
  }
  if (!profile.remoteUrls.image) {
    throw new BadRequestError(`image URL sources are not supported by ${profile.label}; send the image as base64`);
  }
  return { type: 'file', mediaType: 'image', data: { type: 'url', url: new URL(block.source.url) } };
}

/**
 * A document block as a file part (PDF) or a text part (plain text, which every vendor reads). `context`
 * and `citations` have no counterpart outside Anthropic and are dropped with a warning.
 */
export function convertDocumentBlock(block: DocumentBlockParam, profile: AiSdkVendorProfile, warnings: string[]): UserPart {
  if (block.context) warnings.push('document context dropped: not supported by this vendor');
  if (block.citations?.enabled) warnings.push('document citations dropped: not supported by this vendor');
  const filename = block.title ?? undefined;
  switch (block.source.type) {
    case 'base64':
      return { type: 'file', mediaType: 'application/pdf', data: { type: 'data', data: block.source.data }, ...(filename ? { filename } : {}) };
    case 'url':
      if (!profile.remoteUrls.pdf) {
        throw new BadRequestError(`PDF URL sources are not supported by ${profile.label}; send the PDF as base64`);
      }
      return { type: 'file', mediaType: 'application/pdf', data: { type: 'url', url: new URL(block.source.url) }, ...(filename ? { filename } : {}) };
    case 'text':
      return { type: 'text', text: filename ? `${filename}\n\n${block.source.data}` : block.source.data };
    default: {
      const unreachable: never = block.source;
      throw new BadRequestError(`unknown document source ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * A tool result's content as AI SDK tool output. Text-only results stay text (joined by newlines); results
 * with images or PDFs become `content`. `is_error` maps to `error-text`, which has no room for files: those
 * are dropped with a warning.
 */
export function convertToolResultOutput(
  block: ToolResultBlockParam,
  profile: AiSdkVendorProfile,
  warnings: string[],
): LanguageModelV4ToolResultOutput {
  const content = block.content ?? '';
  if (typeof content === 'string') return block.is_error ? { type: 'error-text', value: content } : { type: 'text', value: content };
  const parts: UserPart[] = [];
  for (const item of content) {
    switch (item.type) {
      case 'text':
        parts.push({ type: 'text', text: item.text });
        break;
      case 'image':
        parts.push(convertImageBlock(item, profile));
        break;
      case 'document':
        parts.push(convertDocumentBlock(item, profile, warnings));
        break;
      case 'search_result':
        throw new BadRequestError(`search_result blocks are not supported by ${profile.label}`);
      default: {
        const unreachable: never = item;
        throw new BadRequestError(`unknown tool_result content ${JSON.stringify(unreachable)}`);
      }
    }
  }
  const texts = parts.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  if (texts.length === parts.length || block.is_error) {
    if (texts.length !== parts.length) warnings.push('files in an is_error tool_result dropped: vendors take error results as text');
    const value = texts.join('\n');
    return block.is_error ? { type: 'error-text', value } : { type: 'text', value };
  }
  return {
    type: 'content',
    value: parts.map((part) =>
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
