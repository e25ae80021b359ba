/**
 * Converts system text (the top-level `system`, and `role: "system"` messages anywhere in the conversation)
 * into AI SDK prompt messages. System text before the conversation's first turn is the vendor's system prompt.
 * A later system message applies from its position on: it stays a system message there where the vendor takes
 * one mid-conversation (OpenAI Chat and Responses, Azure, OpenAI-compatible), and becomes a framed text part of
 * a user turn at that position where the vendor takes system text only up front (Gemini, Bedrock).
 */
import type { LanguageModelV4Message, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { SystemMessageParam, TextBlockParam } from '#src/api-types.ts';
import type { AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { unsupportedBlockType } from '#src/providers/ai-sdk/check-translatable-fields.ts';

/** Where converted system text goes: the system prompt, or the vendor's form for a later system message. */
export type SystemPlacement = 'leading' | 'later';

/** Attaches the vendor's cache marker planned for an anchor (a block, or a string-content message). */
export type WithCache = (anchor: object) => { providerOptions?: SharedV4ProviderOptions };

/**
 * The framing of a later system message sent as user text, so the model reads it as an instruction from the
 * application rather than words of the user.
 */
export function frameSystemText(text: string): string {
  return `<system-instruction>\n${text}\n</system-instruction>`;
}

/** Arguments of `convertSystemContent`. */
export interface ConvertSystemContentOptions {
  content: SystemMessageParam['content'];
  /** The object a cache marker on string content is anchored to (the message, or the request for `system`). */
  anchor: object;
  placement: SystemPlacement;
  profile: AiSdkVendorProfile;
  withCache: WithCache;
  /** Where the content is, for 400 messages (`system`, `messages[3].content`). */
  path: string;
}

/** The prompt messages of one system prompt or system message; none when it has no text. */
export function convertSystemContent({ content, anchor, placement, profile, withCache, path }: ConvertSystemContentOptions): LanguageModelV4Message[] {
  const pieces: Array<{ text: string; anchor: object }> = [];
  if (typeof content === 'string') {
    if (content !== '') pieces.push({ text: content, anchor });
  } else {
    (content ?? []).forEach((block, index) => {
      if (block.type !== 'text') throw unsupportedBlockType(block.type, `system content (${path}[${index}])`, profile);
      pieces.push({ text: (block as TextBlockParam).text, anchor: block });
    });
  }
  if (pieces.length === 0) return [];
  if (placement === 'leading' || profile.laterSystemMessages === 'system-message') {
    return pieces.map((piece) => ({ role: 'system', content: piece.text, ...withCache(piece.anchor) }));
  }
  return [{ role: 'user', content: pieces.map((piece) => ({ type: 'text', text: frameSystemText(piece.text), ...withCache(piece.anchor) })) }];
}
