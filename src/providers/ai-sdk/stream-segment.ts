/**
 * A segment of a streaming AI SDK translation: one Anthropic block in the making, kept in the stream state's
 * queue while parts for it arrive, with the provider metadata its block will carry.
 */
import type { SharedV4ProviderMetadata } from '@ai-sdk/provider';
import type { UpstreamError } from '#src/errors.ts';

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
