/**
 * The refusal of tool changes mid-conversation (`tool_addition` and `tool_removal` blocks, Anthropic's
 * `mid-conversation-tool-changes` beta) by a vendor reached by translation, in Anthropic's code for a model
 * without the feature (`error.details.error_code`): on it Claude Code stops sending tool changes to that model
 * and announces late tools its other way, instead of trying again after every `/clear`.
 */
import { UnsupportedFeatureError } from '#src/errors.ts';

/** Anthropic's code for a model that cannot take tool changes mid-conversation. */
export type ToolChangesErrorCode = 'mid_conversation_tool_changes_not_supported';

// The block types of the feature.
const TOOL_CHANGE_BLOCKS: ReadonlySet<string> = new Set(['tool_addition', 'tool_removal']);

/** 400: a tool change block for a vendor that cannot express it. */
export class ToolChangesUnsupportedError extends UnsupportedFeatureError {
  readonly errorCode: ToolChangesErrorCode = 'mid_conversation_tool_changes_not_supported';
}

/** Whether a content block type is one of the tool changes. */
export function isToolChangeBlock(type: string): boolean {
  return TOOL_CHANGE_BLOCKS.has(type);
}

/** The code to show for `error`, when it is a tool changes refusal. */
export function toolChangesErrorCodeOf(error: unknown): ToolChangesErrorCode | undefined {
  return error instanceof ToolChangesUnsupportedError ? error.errorCode : undefined;
}
