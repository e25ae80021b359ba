/**
 * A segment of a streaming AI SDK translation: one Anthropic block in the making, kept in the stream state's
 * queue while parts for it arrive, with the provider metadata its block will carry.
 */
import type { JSONObject, SharedV4ProviderMetadata } from '@ai-sdk/provider';
import type { ContentBlockDeltaEvent, ResponseContentBlock } from '#src/api-types.ts';
import type { UpstreamError } from '#src/errors.ts';
import type { AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { parseToolInput, reasoningBlock } from '#src/providers/ai-sdk/convert-from-ai-sdk-result.ts';

/** What a segment becomes. `signature`: an empty thinking block carrying the signature of the tool call after it (Gemini). */
export type SegmentKind = 'text' | 'reasoning' | 'tool' | 'signature';

/** One AI SDK part's block in the making (see ai-sdk-stream-state.ts for the block rules). */
export interface Segment {
  kind: SegmentKind;
  /** The AI SDK part id (text and reasoning) or tool call id. */
  id?: string;
  /** Text, reasoning or tool input received and not yet emitted. */
  pending: string;
  /** Everything received, for tool input validation and the reasoning block; text keeps none. */
  received: string;
  ended: boolean;
  /** The Anthropic index once `content_block_start` went out. */
  index?: number;
  toolCallId?: string;
  toolName?: string;
  metadata?: SharedV4ProviderMetadata;
  signature?: string;
  /** Whether a tool segment's input was parsed, and why it is not a JSON object when it is not. */
  inputChecked?: boolean;
  inputError?: UpstreamError;
}

/** Merges a part's provider metadata into its segment's, namespace by namespace. */
export function mergeMetadata(segment: Segment, metadata: SharedV4ProviderMetadata | undefined): void {
  if (!metadata) return;
  const merged: SharedV4ProviderMetadata = { ...segment.metadata };
  for (const [namespace, values] of Object.entries(metadata)) merged[namespace] = { ...merged[namespace], ...values };
  segment.metadata = merged;
}

/** The vendor's reasoning metadata of a segment (its namespace only). */
export function reasoningMetadata(segment: Segment, profile: AiSdkVendorProfile): JSONObject {
  return segment.metadata?.[profile.namespace] ?? {};
}

/** Whether a segment has anything to show yet: a start event for it would not be an empty block. */
export function readyToStart(segment: Segment, profile: AiSdkVendorProfile): boolean {
  if (segment.kind === 'tool' || segment.kind === 'signature') return true;
  if (segment.pending !== '') return true;
  // Reasoning without text still matters when it carries replay material (OpenAI encrypted reasoning).
  return segment.kind === 'reasoning' && segment.ended && Object.keys(reasoningMetadata(segment, profile)).length > 0;
}

/** The block a segment's `content_block_start` carries. */
export function startingBlock(segment: Segment, profile: AiSdkVendorProfile): ResponseContentBlock {
  if (segment.kind === 'text') return { type: 'text', text: '' };
  if (segment.kind === 'tool') return { type: 'tool_use', id: segment.toolCallId ?? '', name: segment.toolName ?? '', input: {} };
  if (segment.kind === 'signature') return { type: 'thinking', thinking: '', signature: '' };
  const block = reasoningBlock('', segment.metadata, profile);
  // Redacted reasoning is known by its metadata only; its data rides the start event as in Anthropic's stream.
  return block.type === 'redacted_thinking' && segment.ended ? block : { type: 'thinking', thinking: '', signature: '' };
}

/** The delta of a segment's pending text, reasoning or tool input. */
export function pendingDelta(segment: Segment): ContentBlockDeltaEvent['delta'] {
  if (segment.kind === 'text') return { type: 'text_delta', text: segment.pending };
  if (segment.kind === 'reasoning') return { type: 'thinking_delta', thinking: segment.pending };
  return { type: 'input_json_delta', partial_json: segment.pending };
}

/** The signature a thinking block gets just before its `content_block_stop`, if any. */
export function closingSignature(segment: Segment, profile: AiSdkVendorProfile): string | undefined {
  if (segment.kind === 'signature') return segment.signature ?? '';
  if (segment.kind !== 'reasoning') return undefined;
  const block = reasoningBlock(segment.received, segment.metadata, profile);
  return block.type === 'thinking' && block.signature ? block.signature : undefined;
}

/**
 * Why an ended tool segment's input is not a JSON object, parsed once. The Anthropic SDK parses a tool_use
 * block's input when the block stops, so a broken one must end the stream before its `content_block_stop`:
 * the client then raises the gateway's error event rather than a JSON syntax error of its own.
 */
export function toolInputError(segment: Segment, provider: string): UpstreamError | undefined {
  if (segment.kind !== 'tool') return undefined;
  if (segment.inputChecked) return segment.inputError;
  segment.inputChecked = true;
  try {
    parseToolInput(segment.received, provider);
  } catch (error) {
    segment.inputError = error as UpstreamError;
  }
  return segment.inputError;
}
